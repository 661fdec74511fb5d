# Switchboard: `make run` starts the server, `make test` is what CI runs, `make test-short` is
# the quick unit-test run while working.
GO ?= go

.PHONY: run build test test-replay test-short test-zapier test-openapi bench bench-short bench-go generate check-generated lint

run:
	$(GO) run . serve

build:
	$(GO) build -o bin/switchboard .

generate:
	$(GO) tool templ generate

# Fails when the committed *_templ.go files differ from what the pinned templ generates.
check-generated: generate
	@if [ -n "$$(git status --porcelain -- '*_templ.go')" ]; then \
		echo "generated templ files are stale: run 'make generate' and commit them"; \
		git status --porcelain -- '*_templ.go'; exit 1; fi

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted"; exit 1; fi
	$(GO) vet ./...

test: check-generated lint
	$(GO) test -race -count=1 -timeout 30m ./...
	@$(MAKE) --no-print-directory test-replay
	@$(MAKE) --no-print-directory test-openapi
	@$(MAKE) --no-print-directory test-zapier

# The unit tests alone, in under two minutes: -short skips the tests that build and run the
# binary, drive headless Chromium or kill a process mid-write (make test runs those too).
test-short:
	$(GO) test -short -count=1 ./...

# The store's suites again with every write replayed from its recorded write set, as a cluster's
# node applies the leader's (store.Options.Replay): a write that escaped the recording is lost
# and its test fails.
test-replay:
	$(GO) test -short -count=1 -tags storereplay ./store/... ./oauth ./webhooks ./carrier ./push ./mail ./media ./cluster

# The Zapier app's tests (integrations/zapier) drive the real binary with the app tester.
# Without Node they are skipped with a reason, except under CI=true, where that fails.
# npm ci runs only when node_modules is older than the lockfile, so repeated runs are quick.
test-zapier:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		if [ "$$CI" = "true" ]; then echo "test-zapier: node and npm are required when CI=true"; exit 1; fi; \
		echo "test-zapier: skipped, node or npm is not installed (the Zapier app tests need them)"; exit 0; fi; \
	cd integrations/zapier && \
	if [ ! node_modules/.package-lock.json -nt package-lock.json ]; then npm ci --no-audit --no-fund; fi && \
	npm test

# The OpenAPI document lints with no error under Redocly's recommended rules and Spectral's
# spectral:oas (pinned in lint/package.json); warnings are printed, errors fail. Node is handled
# as for test-zapier. Install scripts are not run: neither tool needs one (one is analytics).
test-openapi:
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		if [ "$$CI" = "true" ]; then echo "test-openapi: node and npm are required when CI=true"; exit 1; fi; \
		echo "test-openapi: skipped, node or npm is not installed (the OpenAPI linters need them)"; exit 0; fi; \
	cd lint && \
	if [ ! node_modules/.package-lock.json -nt package-lock.json ]; then npm ci --no-audit --no-fund --ignore-scripts; fi && \
	npm run --silent lint

# make bench measures from outside, as a user meets it (bench/main.go): it builds the binary,
# imports 1,000,000 generated contacts with `switchboard admin import-contacts`, starts
# `switchboard serve` and measures over HTTP beside raw bbolt, bare net/http and SQLite FTS5,
# then the live inbox (push, inbox search, a long thread), a mixed load, and import and export
# through the running server on a seeded copy (bench/live*.go; BENCHFLAGS=-live=false skips them).
# BENCHFLAGS=-short uses 100,000 contacts. bench/ is its own module (the SQLite driver stays out
# of the server's go.mod). make bench-go runs the in-process go test benchmarks.
BENCHFLAGS ?=

# It then runs the carrier and campaign benchmarks of cli/, which drive the built binary too
# (dispatch rate, a 100,000-copy broadcast delivered, a send behind it, a 100,000-member group).
bench:
	cd bench && $(GO) run . -repo .. $(BENCHFLAGS)
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 60m ./cli

bench-short:
	cd bench && $(GO) run . -repo .. -short $(BENCHFLAGS)

bench-go:
	$(GO) test -run '^$$' -bench . -benchtime 2s -timeout 60m ./...
