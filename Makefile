# The two commands of the README: `make run` and `make test`.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2

.PHONY: run test lint unit bench bench-kube build fuzz kube-bin
.PHONY: prom-bin rules kwok-bin

# VERSION is stamped into the binary (informtop version); BIN is where it goes.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
BIN ?= ./bin/informtop

# CGO_ENABLED=0: kubectl's flags (cli-runtime) link kustomize, which links
# Go's plugin package; with cgo on, that makes the linker keep every exported
# symbol (a 105 MB binary instead of 54), and a run maps most of its code.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/informtop

run: build
	$(BIN)

# test is what CI runs: formatting, vet, staticcheck, then every test under -race.
test: lint unit

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	cd agent && $(GO) vet ./... && $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	for d in test/agent/*/; do (cd $$d && $(GO) vet ./...) || exit 1; done
	cd examples && $(GO) vet ./...
	cd examples && $(GO) vet -tags plain ./...
	cd examples && $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	cd examples && $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -tags plain ./...
	cd deploy/grafana && $(GO) vet ./...
	cd deploy/grafana && $(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# unit needs the kube-apiserver, etcd and kubectl that internal/kubetest
# starts, and the kube-controller-manager attach's pprof test runs; build.sh
# prints the directory holding them (building them first,
# ~11 min cold, when they are missing).
unit: kube-bin prom-bin kwok-bin
	bin=$$(GO=$(GO) test/kube/build.sh) && \
	prom=$$(GO=$(GO) test/prom/build.sh) && \
	kwok=$$(GO=$(GO) test/kwok/build.sh) && \
	INFORMTOP_KUBE_BIN=$$bin INFORMTOP_PROM_BIN=$$prom INFORMTOP_KWOK_BIN=$$kwok $(GO) test -race -count=1 -timeout 20m ./...
	cd deploy/grafana && $(GO) test -count=1 ./...
	cd examples && $(GO) test -race -count=1 ./...
	$(MAKE) agent-matrix

# agent-matrix runs the agent module's tests on every client-go version it
# supports: its own go.mod's (the oldest, under -race), then each of
# test/agent/k8s-*, which pin newer client-go and controller-runtime
# versions (a dependency's tests run with the requiring module's versions).
.PHONY: agent-matrix
agent-matrix:
	cd agent && $(GO) test -race -count=1 ./...
	for d in test/agent/*/; do (cd $$d && $(GO) test -count=1 github.com/informtop/informtop/agent/...) || exit 1; done

# kube-bin builds the integration tests' binaries from the nested module
# test/kube (kept apart so the root module does not depend on k8s.io/kubernetes;
# `./...` above, vet and staticcheck do not enter it).
kube-bin:
	GO=$(GO) test/kube/build.sh

# dashboard regenerates the Grafana dashboard deploy/grafana/informtop.json
# from Go (the nested module deploy/grafana); its test fails until this ran.
.PHONY: dashboard
dashboard:
	cd deploy/grafana && $(GO) run ./cmd/gen -o informtop.json

# kwok-bin builds kwok (the nested module test/kwok), the fake kubelet that
# serves pods/portforward for the attach-through-the-API-server tests
# (internal/kwoktest).
kwok-bin:
	GO=$(GO) test/kwok/build.sh

# prom-bin builds prometheus, promtool and amtool (the nested module test/prom) for
# the rules' tests and internal/promtest.
prom-bin:
	GO=$(GO) test/prom/build.sh

# rules writes deploy/prometheus's PrometheusRule from its plain rules file.
# With RUNBOOK_URL (your copy of docs/runbook.md) it writes both files into
# RULES_OUT instead, every alert's runbook_url on that page:
#   make rules RUNBOOK_URL=https://wiki.example/informtop/runbook RULES_OUT=/tmp/rules
RULES_OUT ?= $(CURDIR)/bin/rules
rules:
ifeq ($(RUNBOOK_URL),)
	$(GO) generate ./deploy/prometheus/
else
	cd deploy/prometheus && $(GO) run ./gen -runbook-url '$(RUNBOOK_URL)' -o '$(abspath $(RULES_OUT))'
endif

# bench compares informtop's engine with client-go's in the same process.
bench:
	{ $(GO) test -run '^$$' -bench . -benchmem -benchtime 10x -count 3 -timeout 60m ./engine/ && \
	  $(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./engine/fifo/ ./engine/indexer/ ./engine/processor/; } \
	  | $(GO) run ./internal/benchratio

# bench-kube compares, against a real API server (10,000 configmaps and
# 5,000 pods, created first), informtop's time to sync and memory per
# object with client-go's informers and kubectl's; it takes minutes.
bench-kube:
	INFORMTOP_KUBE_BIN=$$(GO=$(GO) test/kube/build.sh) $(GO) test -run '^$$' -bench Sync -benchtime 3x -count 1 -timeout 30m ./kube/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzDeltaFIFO -fuzztime 60s -fuzzminimizetime 2s ./engine/fifo/
	$(GO) test -run '^$$' -fuzz FuzzRealFIFO -fuzztime 60s -fuzzminimizetime 2s ./engine/fifo/
	$(GO) test -run '^$$' -fuzz FuzzIndexer -fuzztime 60s -fuzzminimizetime 2s ./engine/indexer/
