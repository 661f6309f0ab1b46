# clusteremu: every target works on a fresh clone with only Go installed.

GO         ?= go
BIN        := $(CURDIR)/.bin
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(BIN)/staticcheck-$(STATICCHECK_VERSION)
FUZZTIME   ?= 30s
BENCHTIME  ?= 1s
BENCHCOUNT ?= 1
VERSION    := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS    := -X main.version=$(VERSION)

.PHONY: all build run test browser viewer bench lint fuzz validate clean

all: lint test

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/clusteremu ./cmd/clusteremu

## run: the main job on the embedded default scenario
run: build
	./bin/clusteremu run

## browser: Debian's chromium, which the report's browser test opens
browser:
	@command -v chromium >/dev/null || apt-get install -y chromium >/dev/null \
		|| (apt-get update >/dev/null && apt-get install -y chromium >/dev/null) \
		|| sudo -n apt-get install -y chromium >/dev/null

## viewer: speedscope, a trace-event viewer the trace's test opens in the
## browser (Perfetto's UI needs the network)
SPEEDSCOPE_VERSION := 1.25.0
SPEEDSCOPE := $(BIN)/speedscope-$(SPEEDSCOPE_VERSION)
$(SPEEDSCOPE):
	rm -rf $@.tmp && mkdir -p $@.tmp
	npm install --silent --no-audit --no-fund --prefix $@.tmp speedscope@$(SPEEDSCOPE_VERSION) >/dev/null
	mv $@.tmp $@
viewer: $(SPEEDSCOPE)

## test: vet, every test under the race detector, then the paper
## reproductions' reduced forms and the fault soaks' seeds (50, and 12 of
## cached clusters), which the race detector would slow ten-fold; then the
## custom-policy example, its own module, with its race fixed (its
## TestTutorial runs the unfixed race in a copy of the module)
test: browser viewer
	$(GO) vet ./...
	CLUSTEREMU_SPEEDSCOPE=$(SPEEDSCOPE) $(GO) test -race -count=1 -timeout 30m ./...
	$(GO) test -count=1 -run '^(TestReproductionsPassReduced|TestFaultSoak|TestCacheFaultSoak|TestSharingAgainstIdealQueues)$$' ./cmd/clusteremu ./scenarios
	cd examples/custom-policy && $(GO) vet ./... && $(GO) test -count=1 ./... -fixed

## bench: every benchmark, with allocations, then the table of whole runs
## (clusteremu bench: BENCH_RUNS runs of each case, BENCH_ONLY to pick
## cases by name; the FB-2009 day and the larger cases take minutes each)
BENCH_RUNS ?= 3
BENCH_ONLY ?=
bench: build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) -count $(BENCHCOUNT) ./...
	./bin/clusteremu bench --runs $(BENCH_RUNS) --only "$(BENCH_ONLY)"

$(STATICCHECK):
	mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(BIN)/staticcheck $@

## lint: formatting, vet and staticcheck
lint: $(STATICCHECK)
	@unformatted="$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

## fuzz: every fuzz target of the module for FUZZTIME each (the examples
## are modules of their own)
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '^./examples/' | sort); do \
		dir=$$(dirname $$f); \
		for t in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | cut -d' ' -f2); do \
			echo "== $$dir $$t"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$dir; \
		done; \
	done

## validate: the paper reproductions and the queueing validations at full
## size, one row per result (WORKERS=host:port,... runs them on clusteremu
## worker processes)
WORKERS ?=
validate: build
	./bin/clusteremu reproduce $(if $(WORKERS),--workers $(WORKERS)) scenarios/papers/*/*.toml scenarios/validation/*.toml

clean:
	rm -rf bin .bin
