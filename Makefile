# Tablesmith: `make run` builds and serves everything; `make test` runs every test.
.PHONY: run dashboard check-node test test-go test-dashboard test-e2e lint bench stop-db swagger-ui

# -race: every Go test runs under the race detector (issue 16).
GO_TEST_FLAGS ?= -race -p 2 -count=1 -timeout 15m

# What ./caddy and the dashboard are built from, so that `make run` rebuilds
# only what changed (a second `make run` with no change starts at once).
GO_SOURCES := go.mod go.sum $(shell find . -name node_modules -prune -o -name .data -prune -o -name .git -prune -o \
	-type f \( -name '*.go' -not -name '*_test.go' -o -name '*.sql' \) -print)
DASHBOARD_SOURCES := $(shell find dashboard/src dashboard/public -type f 2>/dev/null) \
	dashboard/index.html dashboard/vite.config.ts dashboard/tsconfig.json dashboard/package.json

run: caddy dashboard/dist/index.html
	@./scripts/run.sh

# ./caddy with the module (xcaddy.sh), rebuilt when a Go source, a
# migration or the pinned Swagger UI changes.
caddy: $(GO_SOURCES) openapi/swaggerui/package.json
	./xcaddy.sh

dashboard: dashboard/dist/index.html

dashboard/dist/index.html: dashboard/node_modules $(DASHBOARD_SOURCES)
	cd dashboard && npm run build
	@touch $@

dashboard/node_modules: dashboard/package-lock.json | check-node
	cd dashboard && npm ci --no-audit --no-fund
	@touch $@

# Node.js 20.19+ or 22.12+, with a clear message otherwise (scripts/check-node.sh).
check-node:
	@./scripts/check-node.sh

test: test-go test-dashboard test-e2e

# Swagger UI's files from swagger-ui-dist, embedded in the module (go:embed) for /docs.
swagger-ui:
	./openapi/swaggerui/copy-assets.sh

test-go: lint
	go test $(GO_TEST_FLAGS) ./...
	# A short fuzzing run of the query parsers on top of their seed corpus.
	go test -run '^$$' -fuzz FuzzParseFilter -fuzztime 8s ./translate/
	go test -run '^$$' -fuzz FuzzParseList -fuzztime 8s ./translate/
	# And of the table writes' JSON decoder against encoding/json.
	go test -run '^$$' -fuzz FuzzFastObject -fuzztime 8s ./internal/jsonbody/

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

# Stops the private PostgreSQL of `make run` (its data in .data/pg stays).
stop-db:
	@./scripts/devdb.sh stop
