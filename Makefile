# Switchboard: `make run` starts the server, `make test` is what CI runs.
GO ?= go

.PHONY: run build test test-zapier bench generate check-generated lint

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
	$(GO) test -race -count=1 ./...
	@$(MAKE) --no-print-directory test-zapier

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

# Benchmarks hold the speed and memory targets of DESIGN §9 (never timed tests).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s -timeout 60m ./...
