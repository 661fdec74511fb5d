# Switchboard: `make run` starts the server, `make test` is what CI runs.
GO ?= go

.PHONY: run build test bench generate check-generated lint

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

# Benchmarks hold the speed and memory targets of DESIGN §9 (never timed tests).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s -timeout 60m ./...
