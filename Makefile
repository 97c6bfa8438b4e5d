# Tablesmith: `make run` builds and serves everything; `make test` runs every test.
.PHONY: run dashboard check-node s3gw go-tools test-binaries test test-go test-fuzz test-dashboard test-e2e lint bench stop-db swagger-ui

# -race: every Go test runs under the race detector (issue 16).
# -p 3: three test binaries at a time. Most packages spend their run waiting
# on PostgreSQL, timers and Caddy, so a third overlaps that wait (on a quiet
# two-core machine the Go tests took 413 s at -p 3 against 559 s at -p 2,
# docs/testing.md).
# -ldflags=-w: no DWARF in the test binaries and the test Caddy; linking
# about 50 race-built binaries is a large part of a cold run, and -w takes
# a quarter off each link (openapi's: 3.9 against 2.9 CPU-seconds). Stack
# traces and race reports read the symbol table, which stays.
GO_TEST_FLAGS ?= -race -ldflags=-w -p 3 -count=1 -timeout 15m
# The two longest packages (about 200 and 160 s each, where the next takes
# 65) go first: go test starts packages in the order it is given them, and
# these last in ./...'s alphabetical order made the run's tail.
GO_TEST_FIRST := ./openapi/compat ./openapi

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
caddy: $(GO_SOURCES) internal/swaggerui/package.json
	./xcaddy.sh

dashboard: dashboard/dist/index.html

# Vite alone: the type check is make test-dashboard's (npm run build does both).
dashboard/dist/index.html: dashboard/node_modules $(DASHBOARD_SOURCES)
	cd dashboard && npx vite build
	@touch $@

dashboard/node_modules: dashboard/package-lock.json | check-node
	cd dashboard && npm ci --no-audit --no-fund
	@touch $@

# Node.js 20.19+ or 22.12+, with a clear message otherwise (scripts/check-node.sh).
check-node:
	@./scripts/check-node.sh

# make test runs the phases below in order and prints each one's time at
# the end (scripts/test.sh; docs/testing.md says how to run one part alone).
test:
	@./scripts/test.sh

# Swagger UI's files from swagger-ui-dist, embedded in the module (go:embed) for /docs.
swagger-ui:
	./internal/swaggerui/copy-assets.sh

# The Go tests that start Caddy as a process, and the browser tests, all
# run one binary: built with -race, so that after lint it is only linked.
TEST_CADDY := .bin/caddy-race

$(TEST_CADDY): $(GO_SOURCES) internal/swaggerui/package.json | swagger-ui
	go build -race -ldflags=-w -o $@ ./cmd/caddy

# versitygw, an S3-compatible gateway over a directory: the real store the
# tests of the S3 file store run against (internal/tests3), pinned in
# tools/versitygw/go.mod and built once per machine like golangci-lint
# (about a minute).
S3GW_KEY := $(shell { go env GOVERSION; cat tools/versitygw/go.mod tools/versitygw/go.sum; } | sha256sum | cut -c1-16)
S3GW := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/tablesmith/versitygw-$(S3GW_KEY)

$(S3GW):
	mkdir -p $(dir $@)
	cd tools/versitygw && go build -o $@.tmp github.com/versity/versitygw/cmd/versitygw
	mv $@.tmp $@

# s3gw builds the gateway and prints its path (scripts/flake-hunt.sh).
s3gw: $(S3GW)
	@echo $(S3GW)

test-go: $(TEST_CADDY) $(S3GW)
	TABLESMITH_TEST_CADDY=$(abspath $(TEST_CADDY)) TABLESMITH_TEST_S3GW=$(S3GW) go test $(GO_TEST_FLAGS) $(GO_TEST_FIRST) ./...

# Short fuzzing runs on top of the seed corpora: the query parsers (the
# query string itself against net/url, list parameters, filter expressions)
# and the table writes' JSON decoder against encoding/json, one worker each.
# Most of a run is compiling its instrumented package, so they run in two
# waves of two: the first compiles translate's fuzzing binary once and the
# second wave's two translate targets find it in the build cache (all four
# at once compiled it three times over: 196 s against 89 s, docs/testing.md).
# A count of inputs, not a duration: Go 1.26's fuzzing coordinator can fail
# a run with "context deadline exceeded" when its -fuzztime deadline meets
# a worker starved of CPU (golang/go#75804, fixed in 1.27), which the Go
# tests beside it make likely; a count has no deadline to race. 60,000
# inputs take 5 to 8 s a target on a quiet two-core machine (8,000 to
# 13,000 a second), as the 8 s duration did.
FUZZ_TIME ?= 60000x
FUZZ_FIRST := fuzz-FuzzParseQueryString@translate fuzz-FuzzFastObjectDecodesAsEncodingJSONDoes@internal/jsonbody
FUZZ_SECOND := fuzz-FuzzParseFilter@translate fuzz-FuzzParseList@translate
FUZZ_TARGETS := $(FUZZ_FIRST) $(FUZZ_SECOND)
.PHONY: $(FUZZ_TARGETS)
test-fuzz:
	@$(MAKE) -s -j2 --output-sync $(FUZZ_FIRST)
	@$(MAKE) -s -j2 --output-sync $(FUZZ_SECOND)
# go test passes when -fuzz matches no target ("no fuzz tests to fuzz"):
# a renamed target would stop being fuzzed unnoticed, so that fails here.
$(FUZZ_TARGETS):
	@out=$$(go test -run '^$$' -fuzz '^$(word 1,$(subst @, ,$(patsubst fuzz-%,%,$@)))$$' -fuzztime $(FUZZ_TIME) -parallel 1 \
		./$(word 2,$(subst @, ,$@))/ 2>&1); status=$$?; echo "$$out"; \
	if echo "$$out" | grep -q 'no fuzz tests to fuzz'; then echo "$@: no such fuzz target" >&2; exit 1; fi; exit $$status

test-dashboard: dashboard/node_modules
	cd dashboard && npm run typecheck && npm run lint && npm test

# The OpenID provider the provider sign-in journey signs in with (tools/testoidc).
TESTOIDC := .bin/testoidc

$(TESTOIDC): $(shell find tools/testoidc internal/testoidc -name '*.go') go.mod go.sum
	go build -o $@ ./tools/testoidc

test-e2e: $(TEST_CADDY) $(TESTOIDC)
	TABLESMITH_TEST_CADDY=$(abspath $(TEST_CADDY)) TABLESMITH_E2E_TESTOIDC=$(abspath $(TESTOIDC)) ./scripts/e2e.sh


# golangci-lint (staticcheck, errcheck, unused, gocyclo, govet, ineffassign:
# .golangci.yml), pinned in tools/golangci-lint/go.mod like xcaddy. Building
# it takes a minute and a half, so the binary is kept in the user's cache
# under a key of its go.mod, go.sum and the Go version: a fresh clone on the
# same machine finds it there.
LINT_CACHE := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/tablesmith
LINT_KEY := $(shell { go env GOVERSION; cat tools/golangci-lint/go.mod tools/golangci-lint/go.sum; } | sha256sum | cut -c1-16)
GOLANGCI_LINT := $(LINT_CACHE)/golangci-lint-$(LINT_KEY)

$(GOLANGCI_LINT):
	mkdir -p $(LINT_CACHE)
	cd tools/golangci-lint && go build -o $@.tmp github.com/golangci/golangci-lint/v2/cmd/golangci-lint
	mv $@.tmp $@

# GOFLAGS=-race: the linters type-check against packages compiled with the
# race detector's flags, the ones `go test -race` needs, so a cold build
# cache compiles Caddy's thousand packages once, not twice. go vet's checks
# are golangci-lint's govet; run apart they cost 30 s more for no finding
# (docs/testing.md has the measurements).
lint: swagger-ui $(GOLANGCI_LINT)
	gofmt -l . | (! grep .)
	GOFLAGS=-race $(GOLANGCI_LINT) run --allow-parallel-runners ./...

# Every binary the test lanes run, built before they start (scripts/test.sh):
# two at a time, as one compile alone leaves a core idle while it links.
# go-tools are the ones that need only Go and the module proxy; .ci/run
# builds them while it installs Debian's and npm's packages.
go-tools: $(GOLANGCI_LINT) $(S3GW) $(TESTOIDC)

test-binaries:
	@$(MAKE) -s -j2 $(TEST_CADDY) go-tools dashboard/dist/index.html

# make bench: the headline of issue 18 first, then every other phase;
# make bench BENCH_FLAGS=-quick (small tables, short runs), or
# BENCH_FLAGS='-only headline' for the headline alone.
BENCH_FLAGS ?=
bench:
	./bench/run.sh $(BENCH_FLAGS)

# Stops the private PostgreSQL of `make run` (its data in .data/pg stays).
stop-db:
	@./scripts/devdb.sh stop
