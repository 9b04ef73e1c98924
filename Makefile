# placelab — the two commands of the README:
#   make demo   install what is missing, build, generate the synthetic zone, write report/index.html
#   make test   install what is missing, vet, and run every test
#
# Nothing here downloads at run time of placelab itself; installs happen only
# when something is absent (apt packages after an apt-get update; Go modules
# pinned in go.mod/go.sum).

GO      ?= go
BIN     := bin/placelab
DB      ?= placelab.duckdb
SHARED  ?= ../shared/data
REPORT  ?= report
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)

# Debian packages: COIN-OR Clp and CBC (and pkg-config to find them) for the LP
# bound and the exact packings, which every build links (g++ compiles
# optimizer/cbc's event handler); headless Chromium checks the HTML report in tests;
# Slurm and munge run a one-node cluster in the tests (placelab experiment --slurm).
APT_BUILD_PKGS := pkg-config g++ coinor-libclp-dev coinor-libcbc-dev libxgboost-dev
APT_TEST_PKGS  := chromium libjs-requirejs slurm-wlm munge python3-pandas
# Jupyter from Debian for the notebooks (GoNB, the Go kernel, is built from tools/go.mod).
APT_NB_PKGS    := jupyter-notebook jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build kubesched demo test test-long deps-go deps-build deps-test deps-notebooks notebooks-test fmt vet clean bench bench-docs results-docs

all: build

# apt-install the listed packages that are not installed yet.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

deps-go:
	@command -v $(GO) >/dev/null || { echo "Go is required (https://go.dev/dl/)"; exit 1; }
	$(GO) mod download

deps-build: deps-go
	$(call apt_install,$(APT_BUILD_PKGS))

deps-test: deps-build
	$(call apt_install,$(APT_TEST_PKGS))

# GoNB (pinned in tools/go.mod) and goimports, which GoNB runs on every
# cell, into bin/; the kernel is registered with Jupyter.
deps-notebooks: deps-build
	$(call apt_install,$(APT_NB_PKGS))
	cd tools && $(GO) build -o ../bin/gonb github.com/janpfeifer/gonb
	$(GO) build -o bin/goimports golang.org/x/tools/cmd/goimports
	PATH=$(CURDIR)/bin:$$PATH bin/gonb --install --force_deps >/dev/null

# Every notebook runs top to bottom, headless, on a fresh database; a cell
# error fails the target. Committed notebooks carry no outputs. Each executed
# notebook is exported with nbconvert --to html (RequireJS on the page, as in
# the classic Notebook; Debian's copy, offline) into a fresh folder, alone,
# and opened in headless Chromium: every chart must draw, the console stay
# clean, the chart library be on the page once and the notebook stay under
# 300 KB beside it (notebooks/nb TestExportedNotebooks).
NB_DB ?= $(CURDIR)/.nb-test.duckdb
NB_OUT ?= /tmp/placelab-nb
notebooks-test: deps-notebooks
	@for nb in notebooks/*.ipynb; do \
	  if grep -q '"output_type"' $$nb; then echo "$$nb: outputs committed (clear them)"; exit 1; fi; \
	done
	rm -rf $(NB_DB) $(NB_OUT)
	@set -e; for nb in notebooks/*.ipynb; do \
	  echo "executing $$nb"; \
	  PATH=$(CURDIR)/bin:$$PATH PLACELAB_DB=$(NB_DB) PLACELAB_NB_SMALL=1 /usr/bin/jupyter nbconvert --to notebook --execute \
	    --ExecutePreprocessor.timeout=900 $$nb --output-dir $(NB_OUT) >/dev/null 2>/tmp/placelab-nb.log || { tail -40 /tmp/placelab-nb.log; exit 1; }; \
	done
	PLACELAB_NB_EXECUTED=$(NB_OUT) $(GO) test -count=1 -run '^TestExportedNotebooks$$' -v ./notebooks/nb/
	rm -f $(NB_DB)

build: deps-build
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cli

# The demo: the synthetic zone and trace, replayed through Protean and a
# baseline, and again with machine and rack failures, healing and fault /
# update domains (checked in SQL); Huawei-East-1 too when ../shared/data is
# present; a generated Kubernetes cluster loaded, replayed, drained and
# planned on AWS types (placelab plan, when ../shared/data is present); each
# replay bounded by the LP; lifetime-aware placement out of sample; every
# experiment's quick grid; then the report.
DEMO_AVAIL := --failures default --fault-domains 3 --update-domains 5 --buffers 0,0,1
# Lifetime-aware placement, kept short: the survival model at one sigma (no
# search), every distribution arm and its oracle on one seed over the first
# 1.2 days after the training cut (9.3 days into the 14-day trace).
DEMO_SURVIVAL := --sigma 2 --half-life none
DEMO_LIFETIME := off,oracle,nilas,lava,nilas-oracle,lava-oracle --seeds 1 --to 10.5d
# A Kubernetes cluster as kubectl prints it (generated), loaded, its pods
# replayed beside kube-scheduler's placement, a drain plan and a migration
# plan, the latter verified by placelab check.
DEMO_K8S := .demo-k8s
# The cheapest fleet of a few AWS families for that cluster (placelab plan;
# about 8 s), beside the Karpenter-style fleet and the current one.
DEMO_CATALOG := $(SHARED)/catalogs/aws-ec2-us-east-1.csv
DEMO_PLAN := --types 'family=m5,c5,r5,g4dn,m6g' --time-limit 20s --integer-time-limit 5s
DEMO_OBSERVED = $$($(BIN) --db $(DB) sql "SELECT max(run_id) FROM run WHERE engine = 'observed'" --format csv | tail -1)
demo: build
	$(BIN) --db $(DB) generate
	$(BIN) --db $(DB) replay --dataset synthetic --policy protean
	$(BIN) --db $(DB) replay --dataset synthetic --policy bestfit
	$(BIN) --db $(DB) replay --dataset synthetic --policy protean --no-explain $(DEMO_AVAIL)
	$(BIN) --db $(DB) check --run $$($(BIN) --db $(DB) sql "SELECT max(run_id) FROM run" --format csv | tail -1)
	$(BIN) generate k8s --out $(DEMO_K8S)
	$(BIN) --db $(DB) ingest k8s $(DEMO_K8S) --dataset cluster
	$(BIN) --db $(DB) whatif policies --run $(DEMO_OBSERVED) --policies protean,bestfit
	$(BIN) --db $(DB) whatif drain --run $(DEMO_OBSERVED)
	$(BIN) --db $(DB) whatif migrate --run $(DEMO_OBSERVED) --budget 50
	$(BIN) --db $(DB) check --run $$($(BIN) --db $(DB) sql "SELECT max(run_id) FROM run" --format csv | tail -1)
	@if [ -f $(DEMO_CATALOG) ]; then \
	  $(BIN) --db $(DB) plan --run $(DEMO_OBSERVED) --catalog $(DEMO_CATALOG) $(DEMO_PLAN); \
	else echo "($(DEMO_CATALOG) not found: no fleet plan)"; fi
	@if [ -f $(SHARED)/huawei-east-1/Huawei-East-1-lt.csv ]; then \
	  $(BIN) --db $(DB) ingest huawei $(SHARED)/huawei-east-1/Huawei-East-1-lt.csv --dataset huawei-east-1 --inventory synthetic:200 && \
	  $(BIN) --db $(DB) replay --dataset huawei-east-1 --policy protean && \
	  $(BIN) --db $(DB) replay --dataset huawei-east-1 --policy protean --no-explain $(DEMO_AVAIL); \
	else echo "($(SHARED) not found: demo runs on the synthetic zone only)"; fi
	$(BIN) --db $(DB) sql --view run_summary
	$(BIN) --db $(DB) lpbound --unbounded --every 24h --time-limit 5s
	$(BIN) --db $(DB) classify --dataset synthetic
	$(BIN) --db $(DB) predict train --dataset synthetic --metric lifetime_dist $(DEMO_SURVIVAL)
	$(BIN) --db $(DB) lifetime --dataset synthetic --arms $(DEMO_LIFETIME)
	$(BIN) --db $(DB) experiment all --quick
	@echo "report:"; $(BIN) --db $(DB) report --out $(REPORT)

vet: deps-build
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The Slurm test starts munged, slurmctld and slurmd, which needs root: it is
# required when make test runs as root and skipped (saying why) otherwise.
REQUIRE_SLURM := $(shell [ "$$(id -u)" = 0 ] && echo 1)

# The real kube-scheduler (tools/kubesched: a Go module of its own around
# k8s.io/kubernetes, so placelab's build, binary and importers carry none
# of it). Built only when asked — replay --policy kube-scheduler and whatif
# policies --policies kube-scheduler need it — or by make test, which
# builds it, runs its tests and requires placelab's tests of it.
KUBESCHED := bin/kubesched
kubesched: deps-go
	cd tools/kubesched && $(GO) build -o ../../$(KUBESCHED) .

test: deps-test vet kubesched
	cd tools/kubesched && $(GO) vet ./... && $(GO) test -count=1 ./...
	PLACELAB_KUBESCHED=$(CURDIR)/$(KUBESCHED) PLACELAB_REQUIRE_KUBESCHED=1 PLACELAB_REQUIRE_CHROMIUM=1 PLACELAB_REQUIRE_DATA=1 PLACELAB_REQUIRE_PANDAS=1 PLACELAB_REQUIRE_SLURM=$(REQUIRE_SLURM) $(GO) test -count=1 -timeout 30m ./...
	# the concurrent agents, the background refresh, the healable samples computed beside the replay, concurrent XGBoost predictions, the lifetime runs replayed at once and the fleet search's neighbourhoods solved at once, again under the race detector
	$(GO) test -race -count=1 -timeout 30m -run 'Agents|ConflictAvoidance|StoredPlacementsWithinCapacity|ConcurrentPredictRow|Refresh|TypesOfOneShape|LifetimeCompareWorkers|^TestSameDecisions$$|^TestDeterministic$$|^TestClient$$|^TestStartMatchesSample$$|^TestHealableSamplesOfReplay$$|^TestBookWorkerMatchesBook$$|^TestRealTimeEvictionTimes$$|^TestReplayStopsItsBookBeforeReturning$$' ./analysis/ ./analysis/lifetime/ ./analysis/replay/ ./analysis/replay/healable/ ./optimizer/ ./predict/xgboost/ ./predict/client/
	$(GO) test -race -count=1 -timeout 10m -run '^TestLNS' ./optimizer/fleet/
	# every notebook, headless, top to bottom
	$(MAKE) notebooks-test

# Long mode: every slow check (the full real traces, longer fuzzing).
test-long: deps-test vet
	PLACELAB_REQUIRE_CHROMIUM=1 PLACELAB_REQUIRE_SLURM=$(REQUIRE_SLURM) PLACELAB_LONG=1 $(GO) test -count=1 -timeout 120m ./...
	PLACELAB_LONG=1 $(GO) test -race -count=1 -timeout 120m -run 'Agents|ConflictAvoidance|StoredPlacementsWithinCapacity|ConcurrentPredictRow|Refresh|TypesOfOneShape|LifetimeCompareWorkers|^TestSameDecisions$$|^TestDeterministic$$|^TestClient$$|^TestStartMatchesSample$$|^TestHealableSamplesOfReplay$$|^TestBookWorkerMatchesBook$$|^TestRealTimeEvictionTimes$$|^TestReplayStopsItsBookBeforeReturning$$' ./analysis/ ./analysis/lifetime/ ./analysis/replay/ ./analysis/replay/healable/ ./optimizer/ ./predict/xgboost/ ./predict/client/
	PLACELAB_LONG=1 $(GO) test -race -count=1 -timeout 10m -run '^TestLNS' ./optimizer/fleet/

bench: build
	$(GO) test -run '^$$' -bench . -benchtime 1x ./...

# The performance figures in docs: placelab bench all, its JSON committed in
# docs/bench and docs/reference/performance.md generated from it (a few
# minutes; run it on a machine doing nothing else).
bench-docs: build
	mkdir -p docs/bench
	bin/placelab -q --db :memory: bench all --format json > docs/bench/all.json
	printf '{"commit": "%s", "date": "%s", "command": "placelab --db :memory: bench all --format json", "machine": "%s"}\n' \
	  "$$(git rev-parse --short HEAD)" "$$(date -u +%Y-%m-%d)" "$$(nproc) cores, $$(free -g | awk '/Mem:/{print $$2}') GiB" > docs/bench/meta.json
	PLACELAB_UPDATE_DOCS=1 $(GO) test -count=1 ./cli -run TestDocs

# The results pages in docs: every experiment's quick grid on a scratch
# database, rendered as the report's experiments page in Markdown.
results-docs: build
	rm -rf .cache/results && mkdir -p .cache/results docs/results
	bin/placelab -q --db .cache/results/r.duckdb experiment all --quick
	bin/placelab -q --db .cache/results/r.duckdb report --out .cache/results/site --markdown
	{ printf 'Generated by `make results-docs` at commit `%s` on %s: `placelab experiment all --quick`, then `placelab report --markdown`; the same page, with its charts, is `experiments.html` of `placelab report`.\n\n' \
	  "$$(git rev-parse --short HEAD)" "$$(date -u +%Y-%m-%d)"; cat .cache/results/site/experiments.md; } > docs/results/experiments.md

clean:
	rm -rf bin $(REPORT)
