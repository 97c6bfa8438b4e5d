# Tablesmith: `make run` builds and serves everything; `make test` runs every test.
.PHONY: run caddy dashboard test test-go test-dashboard test-e2e lint bench stop-db swagger-ui

# -race: every Go test runs under the race detector (issue 16).
GO_TEST_FLAGS ?= -race -p 2 -count=1 -timeout 15m

run: caddy dashboard
	@url=$$(./scripts/devdb.sh) && \
	echo "Tablesmith on $${TABLESMITH_ADDR:-http://localhost:8080} (PostgreSQL: $$url)" && \
	TABLESMITH_DATABASE_URL="$$url" ./caddy run --config Caddyfile.example --adapter caddyfile

caddy:
	./xcaddy.sh

dashboard: dashboard/node_modules
	cd dashboard && npm run build

dashboard/node_modules: dashboard/package-lock.json
	cd dashboard && npm ci --no-audit --no-fund
	@touch $@

test: test-go test-dashboard test-e2e

# Swagger UI's files from swagger-ui-dist, embedded in the module (go:embed) for /docs.
swagger-ui:
	./openapi/swaggerui/copy-assets.sh

test-go: lint
	go test $(GO_TEST_FLAGS) ./...
	# A short fuzzing run of the query parsers on top of their seed corpus.
	go test -run '^$$' -fuzz FuzzParseFilter -fuzztime 8s ./translate/
	go test -run '^$$' -fuzz FuzzParseList -fuzztime 8s ./translate/

test-dashboard: dashboard/node_modules
	cd dashboard && npm run typecheck && npm run lint && npm test

test-e2e:
	./scripts/e2e.sh

# golangci-lint (staticcheck, errcheck, unused, gocyclo, govet, ineffassign:
# .golangci.yml), pinned in tools/golangci-lint/go.mod like xcaddy.
GOLANGCI_LINT := .bin/golangci-lint

$(GOLANGCI_LINT): tools/golangci-lint/go.mod tools/golangci-lint/go.sum
	cd tools/golangci-lint && go build -o ../../$(GOLANGCI_LINT) github.com/golangci/golangci-lint/v2/cmd/golangci-lint

lint: swagger-ui $(GOLANGCI_LINT)
	gofmt -l . | (! grep .)
	go vet ./...
	$(GOLANGCI_LINT) run --allow-parallel-runners ./...

# make bench: the headline of issue 18 first, then every other phase;
# make bench BENCH_FLAGS=-quick (small tables, short runs), or
# BENCH_FLAGS='-only headline' for the headline alone.
BENCH_FLAGS ?=
bench:
	./bench/run.sh $(BENCH_FLAGS)

stop-db:
	-runuser -u postgres -- pg_ctl -D .data/pg stop 2>/dev/null || pg_ctl -D .data/pg stop
