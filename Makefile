# Switchboard: `make run` starts the server, `make test` is what CI runs.
GO ?= go

.PHONY: run build test bench bench-short bench-go generate check-generated lint

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

# make bench measures from outside, as a user meets it (bench/main.go): it builds the binary,
# imports 1,000,000 generated contacts with `switchboard admin import-contacts`, starts
# `switchboard serve` and measures over HTTP beside raw bbolt, bare net/http and SQLite FTS5.
# BENCHFLAGS=-short uses 100,000 contacts. bench/ is its own module (the SQLite driver stays out
# of the server's go.mod). make bench-go runs the in-process go test benchmarks.
BENCHFLAGS ?=

bench:
	cd bench && $(GO) run . -repo .. $(BENCHFLAGS)

bench-short:
	cd bench && $(GO) run . -repo .. -short $(BENCHFLAGS)

bench-go:
	$(GO) test -run '^$$' -bench . -benchtime 2s -timeout 60m ./...
