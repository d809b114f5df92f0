# cqlload — see README.md. Every target works on a machine with only Go.
GO       ?= go
BIN      := bin
PKGS     := ./...
# The process tests' cqlload and cqlsim, built once with the race
# detector before the tests (internal/proctest.Build): each test binary
# that runs them built its own, at once on a fresh machine, where the
# build cache had none of their packages yet. Tests are built without
# profile-guided optimisation (-pgo=off): cmd/cqlload's default.pgo
# made its test binary compile every package it imports twice more,
# almost half of a fresh machine's compiling (324 s of CPU, 174 without).
# go test's own vet pass is off (-vet=off): make lint runs go vet whole.
# make test runs four test binaries at once (-p 4; GOMAXPROCS, 2 here,
# by default): most of its time is process and end-to-end tests waiting
# on timeouts, retry windows and rates, not on the CPU (243 s at 2, 192 s
# at 4 with the build cache warm).
TESTBIN  := $(CURDIR)/.testbin
# TAGS=gcs,azure adds the gs:// and azblob:// drivers (see docs/storage-and-splitting.md,
# Inputs in object storage); the default build reads s3:// and file://.
TAGS     ?=
FUZZTIME ?= 10s
# 0: cqlsim picks a free port, so the demo runs beside anything else.
DEMO_PORT ?= 0

.PHONY: all build install test check test-short test-large chaos bench pgo demo lint fuzz integration snapshot docker up down clean

all: build

# Binaries are built static, without cgo, as the release archives and the
# Docker image are: make bench then measures the binary users run, and
# make install installs it. (With cgo the binary also maps the C library
# and its loader: about 2 MiB more RSS.)
STATIC := CGO_ENABLED=0

build:
	$(STATIC) $(GO) build -tags '$(TAGS)' -o $(BIN)/ ./cmd/...

# cqlload and cqlsim into GOBIN (default $(go env GOPATH)/bin). The
# module's replace directive (the ScyllaDB gocql fork) rules out
# `go install …@latest`; inside a clone it applies.
install:
	$(STATIC) $(GO) install -tags '$(TAGS)' ./cmd/...

# Unit and end-to-end tests (the latter start cqlsim in-process), with the
# race detector, and a representative process test of each feature
# (resume after kill -9 and SIGINT, splits, object storage, counters, a
# node stopped mid-load, hostile input) on small inputs. About 3.5
# minutes on 2 cores, 5.5 on a fresh machine (docs/development.md).
test:
	$(GO) build -race -pgo=off -o $(TESTBIN)/ ./cmd/cqlload ./cmd/cqlsim
	CQLLOAD_TEST_BIN=$(TESTBIN) $(GO) test -race -pgo=off -vet=off -count=1 -p 4 -timeout 20m $(PKGS)
	cd deploy/kubernetes && CQLLOAD_TEST_BIN=$(TESTBIN) $(GO) test -count=1 ./...

# Everything, as CI runs it: the tests built with the tag check (make
# test's, plus the long process and chaos tests in *_check_test.go files
# and the full sizes and cases of the others), the split test at the
# issue's size (test-large) and every fuzz target for FUZZTIME. About
# 17 minutes on 2 cores with FUZZTIME=5s, as CI runs it.
check:
	$(GO) build -race -pgo=off -o $(TESTBIN)/ ./cmd/cqlload ./cmd/cqlsim
	CQLLOAD_TEST_BIN=$(TESTBIN) $(GO) test -race -pgo=off -vet=off -count=1 -timeout 30m -tags check $(PKGS)
	cd deploy/kubernetes && CQLLOAD_TEST_BIN=$(TESTBIN) $(GO) test -count=1 ./...
	$(MAKE) test-large
	$(MAKE) fuzz FUZZTIME=$(FUZZTIME)

test-short:
	$(GO) test -count=1 $(PKGS)

# The split process test at the issue's size: N = 3 and N = 7 cqlload
# processes on inputs with a 250 MB file of quoted multi-line records
# (make test runs N = 3 on 2 MB, make check's tests both on 6 MB), and 4
# processes with a split plan. About 4 minutes on 2 cores; part of check.
test-large:
	$(GO) test -count=1 -timeout 20m -tags 'check large' -run '^TestSplitProcesses$$' ./cmd/cqlload

# Process-level fault tests, all of them (make test runs a part, make
# check all): real cqlload and cqlsim processes, faults driven through
# cqlsim's HTTP control requests.
chaos:
	$(GO) test -race -count=1 -timeout 20m -tags check ./chaos/

# Benchmarks of the whole loader against cqlsim beside the raw-driver
# ceiling; BENCH_ROWS sets the dataset size.
bench: build
	$(GO) run ./bench $(BENCH_ARGS)

# The CPU profile cqlload is built with (cmd/cqlload/default.pgo: the go
# command applies profile-guided optimisation to every build of the
# cqlload binary): the loader on make bench's datasets, twice, merged.
# Run it again after changes to the hot path (docs/benchmarks.md, Where the time goes).
PGO_RUNS := 1 2
pgo: build
	rm -rf $(BIN)/pgo
	for i in $(PGO_RUNS); do $(GO) run ./bench -rows 1000000 -alloc-rows 1000000 -datasets narrow,1kb,wide,rich -store narrow \
	  -scale 0 -capacity=false -splits=false -shapes=false -repeat 1 -profile $(BIN)/pgo/$$i -json $(BIN)/pgo/$$i.json -plot "" || exit 1; done
	$(GO) tool pprof -proto $(BIN)/pgo/*/*.cpu.pprof > cmd/cqlload/default.pgo

# Starts cqlsim, applies the demo schema, loads testdata/ with a progress
# bar, prints the summary and the row counts read back, stops cqlsim.
demo: build
	DEMO_PORT=$(DEMO_PORT) ./scripts/demo.sh

# tools/ and integration/ are modules of their own (goreleaser and
# testcontainers keep their dependencies there): ./... of this module does
# not reach them, so they are vetted and tidy-checked here one by one. The
# first goreleaser check builds goreleaser (a few minutes; cached after).
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.6.1
GORELEASER  := $(GO) tool -modfile=tools/go.mod goreleaser

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags check $(PKGS)
	$(GO) vet -tags 'check large' ./cmd/cqlload
	@# The release's other systems: their code and tests must build there too.
	GOOS=darwin $(GO) vet $(PKGS)
	GOOS=windows $(GO) vet $(PKGS)
	$(GO) vet -tags gcs,azure ./source/
	$(GO) run $(STATICCHECK) $(PKGS)
	@$(GO) mod tidy -diff || { echo "go.mod is not tidy: run go mod tidy"; exit 1; }
	cd integration && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./...
	@cd integration && $(GO) mod tidy -diff || { echo "integration/go.mod is not tidy: cd integration && go mod tidy"; exit 1; }
	@cd tools && $(GO) mod tidy -diff || { echo "tools/go.mod is not tidy: cd tools && go mod tidy"; exit 1; }
	cd deploy/kubernetes && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./...
	@cd deploy/kubernetes && $(GO) mod tidy -diff || { echo "deploy/kubernetes/go.mod is not tidy: cd deploy/kubernetes && go mod tidy"; exit 1; }
	$(GORELEASER) check
	./scripts/check-dockerfile.sh

# Each fuzz target for FUZZTIME.
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

# The integration suite (module integration/) against real clusters: the
# one CQL_HOSTS names (host[:port],…), or else Apache Cassandra and
# ScyllaDB started in Docker by testcontainers, one after the other.
integration:
	@if [ -n "$$CQL_HOSTS" ]; then \
	  echo "integration: against CQL_HOSTS=$$CQL_HOSTS"; \
	elif docker info >/dev/null 2>&1; then \
	  echo "integration: CQL_HOSTS is not set; starting Cassandra and ScyllaDB in Docker"; \
	else \
	  echo "integration: no cluster to run against: CQL_HOSTS is not set and no Docker engine answers (docker info failed)." >&2; \
	  echo "  Either name a running cluster: CQL_HOSTS=host[:port],... make integration" >&2; \
	  echo "  (make up starts ScyllaDB on 127.0.0.1:9042 and Cassandra on :9043 with Docker Compose)," >&2; \
	  echo "  or run it where a Docker engine answers, and it starts Cassandra and ScyllaDB itself." >&2; \
	  exit 1; \
	fi
	cd integration && CQLLOAD_INTEGRATION=1 $(GO) test -count=1 -v -timeout 30m ./...

# Release archives and checksums into bin/dist without publishing
# (.goreleaser.yaml; a tagged release is `goreleaser release`).
snapshot:
	$(GORELEASER) release --snapshot --clean

# The container image (Dockerfile); needs a Docker engine.
docker:
	docker build -t cqlload .

up:
	docker compose up -d --wait

down:
	docker compose down -v

clean:
	rm -rf $(BIN) bench/results.json
