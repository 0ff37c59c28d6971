# ctrlsim: a deterministic simulation test harness for Kubernetes controllers.
# `make test` and `make run` are the two set-up commands: they fetch what they need.

GO       ?= go
PKGS     ?= ./...
# Where built envtest binaries (kube-apiserver, etcd, kube-controller-manager) are cached,
# outside the repo; empty means $(HOME)/.cache/ctrlsim/envtest/<k8s-version>
# (hack/envtest-assets.sh picks the version).
ENVTEST_ASSETS ?=
# The seed of every property test (pgregory.net/rapid) in make test and make check, so
# that CI draws the same sequences every run and fails only on a change that breaks
# one of them; RAPID_SEED=0 (rapid's "a random seed") explores new ones, and a failure
# prints the seed that reproduces it. The explorations seed their own draws.
RAPID_SEED ?= 1
# Where tests keep artifacts (the inspector's screenshot), outside the repo.
ARTIFACTS ?= $(HOME)/.cache/ctrlsim/artifacts

.PHONY: all run check api test long race lint vet bench fuzz reports falsealarms envtest-assets test-envtest chromium chromium-start test-browser help

all: test

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

# Where make run builds the command (outside the repo).
BIN ?= $(HOME)/.cache/ctrlsim/bin

run: ## the catalogue swarm on the built-in simulator (ctrlsim run; RUN_FLAGS=... to pass flags)
	@GO="$(GO)" hack/build-ctrlsim.sh "$(BIN)/ctrlsim"
	"$(BIN)/ctrlsim" run $(RUN_FLAGS)

# The test binaries link without DWARF (-w) and without the ELF symbol table
# (-s): nothing in make check or make test reads either (stack traces,
# runtime.FuncForPC and the profiles runtime/pprof writes use the Go runtime's
# own function table, which -s keeps), and a test binary of the world (about
# 1,400 packages) links in 8.3 s instead of 13 (8.8 s with -w alone; 100 MB
# instead of 141): go test links every test binary anew at each run, about 120
# of them.
TEST_LDFLAGS ?= -s -w

# Tests that explore for minutes and that check skips: examples' and operatortest's own
# explorations (make test runs them; the catalogue's expectations, sharding and the browser
# test skip themselves under -short).
CHECK_SKIP ?= ^(TestTheCrashBetweenWritesIsFoundAndTheFixHolds|TestWithTwoReplicas|TestExploreDrawnCronJobs|TestExploreForbidSample|TestExploreTheSampleHolds|TestShardsMergeToTheUnshardedExploration)$$

check: ## the quick loop (no envtest, no browser; about 1m40s on 2 cores with a warm build cache): go vet, the lint, the public API against api/ctrlsim.txt, and every test that needs no envtest, browser or long exploration (go test -short)
	$(GO) vet $(PKGS)
	KUBEBUILDER_ASSETS= CI= RAPID_SEED="$(RAPID_SEED)" $(GO) test -short -ldflags='$(TEST_LDFLAGS)' -skip '$(CHECK_SKIP)' $(PKGS)

# The public API's recorded surface (api/ctrlsim.txt) is checked by
# internal/apisurface's TestTheRecordedSurfaceIsCurrent in make check and make test.
api: ## record the public API's surface in api/ctrlsim.txt (after adding a name; a removed name keeps a deprecated alias)
	$(GO) run ./internal/apisurface -write

# make test skips each scenario's TestEntries: `ctrlsim catalogue --check`, its last step,
# explores the same (entry, variant) pairs at the same budget and applies the same rule
# (catalogue.Result.Problems), so the catalogue is explored once, not twice.
TEST_SKIP ?= ^TestEntries$$

test: chromium-start envtest-assets ## everything CI runs: vet, all tests (envtest suites and the inspector in headless Chromium included), the scheduler's determinism under -race (make race: the world's), reports/ current and the catalogue's expectations met
	$(GO) mod download
	$(GO) vet $(PKGS)
	KUBEBUILDER_ASSETS="$$(ENVTEST_ASSETS="$(ENVTEST_ASSETS)" hack/envtest-assets.sh --print-dir)" \
		CTRLSIM_CHROMIUM="$$(hack/chromium.sh --wait "$(ARTIFACTS)/chromium")" CTRLSIM_ARTIFACTS="$(ARTIFACTS)" RAPID_SEED="$(RAPID_SEED)" $(GO) test -count=1 -ldflags='$(TEST_LDFLAGS)' -timeout 35m -skip '$(TEST_SKIP)' $(PKGS)
	$(GO) test -count=1 -ldflags='$(TEST_LDFLAGS)' -race -run '$(RACE_RUN)' ./sim/scheduler/
	$(GO) run ./cmd/ctrlsim catalogue --check

# Determinism under -race: the tests RACE_RUN names in RACE_PKGS. make test runs
# them in the kernel's scheduler alone (132 packages to build with -race); the
# world's packages (sim/cluster, wallclock, operatortest/clientgo) import
# client-go, controller-runtime and kube-controller-manager's controllers, about
# 1,450 packages whose -race build took 9 of make test's minutes on a fresh
# 2-core machine, so they run here (make race).
RACE_RUN  ?= Determinism|Kill|Outside|Runnable
RACE_PKGS ?= ./sim/scheduler/ ./sim/cluster/ ./wallclock/ ./operatortest/clientgo/

race: ## determinism under -race in the world's packages too (sim/cluster, wallclock, operatortest/clientgo; make test runs the scheduler's): about 10 minutes on a fresh 2-core machine, most of it the -race build
	$(GO) test -count=1 -ldflags='$(TEST_LDFLAGS)' -race -run '$(RACE_RUN)' $(RACE_PKGS)

# The long forms of the explorations make test bounds (package internal/long):
# the medians over five explorer seeds, the correct operators over 1,000 plans,
# the simple judge's 1,000 plans.
LONG_PKGS ?= ./examples/... ./operatortest/reference/
LONG_RUN  ?= ^(TestTheSearchFinds.*|TestTheCorrectOperatorHolds.*|TestTheCrashBetweenWritesIsFoundAndTheFixHolds|TestTheSearchCatchesTheTwinAndTheCorrectOperatorHolds|TestTheSimpleJudgeAgreesWithTheLazyOne)$$

long: envtest-assets ## the long forms of the explorations make test bounds (CTRLSIM_LONG=1: medians over five explorer seeds, correct operators over 1,000 plans); hours on 2 cores
	KUBEBUILDER_ASSETS="$$(ENVTEST_ASSETS="$(ENVTEST_ASSETS)" hack/envtest-assets.sh --print-dir)" \
		CTRLSIM_LONG=1 $(GO) test -count=1 -timeout 0 -run '$(LONG_RUN)' $(LONG_PKGS)

lint: ## the project's rules (determinism, layering, doc.go) and go vet
	$(GO) vet $(PKGS)
	$(GO) test -count=1 ./internal/lint/

bench: envtest-assets ## ctrlsim bench into reports/bench.md (operatortest figures on every core included), then the Go benchmarks of the kernel on one core
	KUBEBUILDER_ASSETS="$$(ENVTEST_ASSETS="$(ENVTEST_ASSETS)" hack/envtest-assets.sh --print-dir)" $(GO) run ./cmd/ctrlsim bench --report reports/bench.md
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1 -count 3 ./sim/apiserver/ ./sim/cluster/ ./sim/queue/ ./sim/scheduler/ ./sim/patch/ ./cmd/ctrlsim/internal/promobench/

FUZZTIME ?= 60s
fuzz: ## fuzz every target for FUZZTIME each (default 60s); failures land in fuzz/testdata
	@for t in $$($(GO) test ./fuzz/ -list '^Fuzz' | grep '^Fuzz'); do \
		echo "fuzzing $$t for $(FUZZTIME)"; \
		$(GO) test ./fuzz/ -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) || exit 1; \
	done

reports: ## regenerate the reports/ catalogue (commit the result)
	$(GO) run ./cmd/ctrlsim catalogue

# Plans per correct operator of the false-alarm suite (examples/patterns) in make falsealarms;
# make test runs the suite's own bounded budget.
FALSEALARM_PLANS ?= 1000

falsealarms: ## the false-alarm suite at FALSEALARM_PLANS (1,000) plans per correct operator, each twin caught, and reported with KeepGoing with no finding a false alarm; writes reports/falsealarms.md (commit it); hours on 2 cores: FALSEALARM_ONLY=a,b measures those patterns and keeps the other rows
	$(GO) test -count=1 -timeout 0 -v -run '^(TestFalseAlarmReport|TestKeepGoingReportsEachTwinsBug)$$' ./examples/patterns/ \
		-patterns.plans=$(FALSEALARM_PLANS) -patterns.report=$(CURDIR)/reports/falsealarms.md -patterns.only=$(FALSEALARM_ONLY)

envtest-assets: ## build kube-apiserver, kube-controller-manager and etcd from the Go module proxy, once, into ~/.cache/ctrlsim/envtest
	@ENVTEST_ASSETS="$(ENVTEST_ASSETS)" hack/envtest-assets.sh

# make test finds (or installs) Chromium beside the envtest build and vet, and
# waits for it before go test.
chromium-start:
	@hack/chromium.sh --start "$(ARTIFACTS)/chromium"

chromium: ## find headless Chromium for the inspector's browser test, installing Debian's chromium where it can
	@hack/chromium.sh >/dev/null

test-browser: ## the run inspector in headless Chromium (screenshot into ARTIFACTS)
	CTRLSIM_CHROMIUM="$$(hack/chromium.sh)" CTRLSIM_ARTIFACTS="$(ARTIFACTS)" $(GO) test -count=1 -v -run TestInspectorInBrowser ./cmd/ctrlsim/internal/ctrlsim/

# Flags for the differential suite's test binary in test-envtest; its sequences come from a
# fixed seed unless asked, e.g. DIFF_FLAGS='-rapid.seed=0 -rapid.checks=300' explores new ones.
DIFF_FLAGS ?=

test-envtest: ## the suites that need a real kube-apiserver (fails when the assets are missing; DIFF_FLAGS=... for the differential suite)
	@dir=$$(ENVTEST_ASSETS="$(ENVTEST_ASSETS)" hack/envtest-assets.sh --print-dir) && \
	echo "KUBEBUILDER_ASSETS=$$dir" && \
	KUBEBUILDER_ASSETS="$$dir" CI=true $(GO) test -count=1 ./internal/differential/ $(DIFF_FLAGS)
