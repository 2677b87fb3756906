# bizassist: build, run and check the whole monorepo. `make` alone lists the targets.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
export PATH := /usr/local/go/bin:$(PATH)

# Every module in go.work (libs, services/*, tools), relative to the repository root.
MODULES := $(patsubst $(CURDIR)/%,%,$(shell PATH="$(PATH)" go list -m -f '{{.Dir}}'))
ifeq ($(MODULES),)
$(error cannot list the modules of go.work: is Go installed (/usr/local/go/bin)?)
endif
# Their packages as one pattern list: go vet, go test and golangci-lint take the whole workspace
# in one invocation, which type-checks libs once rather than once per module that imports it.
PACKAGES := $(addsuffix /...,$(addprefix ./,$(MODULES)))

SHELL_SCRIPTS = .ci/run $(wildcard tools/*/*.sh services/*/*.sh)

GOLANGCI_LINT_VERSION := v2.6.2
GOLANGCI_LINT_DIR := $(HOME)/.cache/bizassist/golangci-lint/$(GOLANGCI_LINT_VERSION)
GOLANGCI_LINT := $(GOLANGCI_LINT_DIR)/golangci-lint

# govulncheck, the known-vulnerability check of make vulncheck (go install, pinned, cached like
# golangci-lint). It reads vuln.go.dev, so it runs in GitHub Actions, not in .ci/run.
GOVULNCHECK_VERSION := v1.9.0
GOVULNCHECK_DIR := $(HOME)/.cache/bizassist/govulncheck/$(GOVULNCHECK_VERSION)
GOVULNCHECK := $(GOVULNCHECK_DIR)/govulncheck

# Redocly CLI, the independent OpenAPI linter of make test-apidocs (npm, pinned, cached like golangci-lint).
REDOCLY_VERSION := 2.77.0
REDOCLY_DIR := $(HOME)/.cache/bizassist/redocly/$(REDOCLY_VERSION)
REDOCLY := $(REDOCLY_DIR)/node_modules/.bin/redocly
# openapi-typescript, openapi-fetch and TypeScript: the TypeScript SDK check of make test-apidocs
# (npm, pinned, cached like Redocly).
TS_SDK_PACKAGES := openapi-typescript@7.13.0 openapi-fetch@0.17.0 typescript@5.9.3
TS_SDK_DIR := $(HOME)/.cache/bizassist/ts-sdk/$(subst @,-,$(subst $(eval) ,_,$(TS_SDK_PACKAGES)))
TS_SDK := $(TS_SDK_DIR)/node_modules/.bin/openapi-typescript

# axe-core, the accessibility engine the console's browser tests inject into every page (npm,
# pinned, cached like Redocly); Chromium itself is Debian's (make deps).
AXE_VERSION := 4.10.3
AXE_DIR := $(HOME)/.cache/bizassist/axe-core/$(AXE_VERSION)
AXE := $(AXE_DIR)/node_modules/axe-core/axe.min.js

# grafana/dashboard-linter, the linter of make test-dashboards (go install, pinned, cached). Not
# part of make test: this machine's module proxy serves no version of it, so a new machine cannot
# install it; tools/kube's dashboard tests (variables, narrowed selectors, descriptions) run there.
# Pinned
# to the commit before v0.2.0: v0.2.0 adds Grafana's v2 dashboard schema (which these dashboards do
# not use) through github.com/grafana/grafana/apps/dashboard, a module some proxies do not serve.
DASHBOARD_LINTER_VERSION := v0.1.2-0.20260514183524-1be3836b83fb
DASHBOARD_LINTER_DIR := $(HOME)/.cache/bizassist/dashboard-linter/$(DASHBOARD_LINTER_VERSION)
DASHBOARD_LINTER := $(DASHBOARD_LINTER_DIR)/dashboard-linter

##@ General

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} \
		/^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-12s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Local stack

# The local stack's supervisor (tools/devstack, Go). Built on each use: when nothing changed, go
# build copies it from the build cache.
DEVSTACK := .devstack/devstack
devstack = go build -o $(DEVSTACK) ./tools/devstack && $(DEVSTACK)

.PHONY: deps
deps: ## Make sure PostgreSQL, Redis, nginx, openssl and Chromium are installed and PostgreSQL and Redis running
	@tools/devstack/deps.sh

.PHONY: dev-tools
dev-tools: $(GOLANGCI_LINT) $(REDOCLY) $(TS_SDK) $(AXE) ## Install the pinned checkers into ~/.cache/bizassist: golangci-lint, Redocly CLI, the TypeScript SDK check, axe-core

# make up REPLICAS=2 runs two processes of every service behind the ingress (tools/devstack). The
# scale-out shape: make up REDIS=cluster (a local Redis Cluster, 3 masters + 3 replicas) and/or
# PG_REPLICA=1 (a streaming PostgreSQL replica for lag-tolerant reads); docs/decisions.md.
REPLICAS ?= 1
REDIS ?=
PG_REPLICA ?=
# make up MONITORING=1 adds Prometheus (127.0.0.1:9090) and Alertmanager (127.0.0.1:9093) with the
# chart's own rules, scraping every process (tools/devstack/monitoring.go).
MONITORING ?=
scale_up = $(if $(filter cluster,$(REDIS)),tools/devstack/redis-cluster.sh up;) $(if $(filter 1,$(PG_REPLICA)),tools/devstack/pg-replica.sh up;)
scale_down = if [ -d .devstack/redis-cluster ]; then tools/devstack/redis-cluster.sh down; fi; \
	if [ -d .devstack/pg-replica ]; then tools/devstack/pg-replica.sh down; fi

.PHONY: up
up: export DEVSTACK_REPLICAS = $(REPLICAS)
up: ## Build and (re)start the stack behind https://127.0.0.1:8443 (REPLICAS=2: two processes per service; REDIS=cluster, PG_REPLICA=1: the scale-out shape; MONITORING=1: Prometheus and Alertmanager); writes .devstack/env
	@$(scale_up) export DEVSTACK_REDIS=$(REDIS) DEVSTACK_PG_REPLICA=$(PG_REPLICA) DEVSTACK_MONITORING=$(MONITORING); $(devstack) up

.PHONY: up-plan
up-plan: export DEVSTACK_REPLICAS = $(REPLICAS)
up-plan: export DEVSTACK_MONITORING = $(MONITORING)
up-plan: ## What make up would run: services, ports, helpers, seeds, each environment and its sources; changes nothing
	@go run ./tools/devstack up -dry-run

.PHONY: restart
restart: ## Restart one service process of the running stack: SVC=leads, or SVC=leads.2 (REPLICAS=2)
	@$(devstack) restart $(SVC)

.PHONY: drain
drain: ## Stop one service process of the running stack, out of the ingress first (REPLICAS=2): SVC=leads.2; make restart SVC=leads.2 brings it back
	@$(devstack) drain $(SVC)

.PHONY: down
down: ## Stop the services and the ingress, and the scale-out shape's Redis Cluster and replica (PostgreSQL, Redis and .devstack state stay)
	@$(devstack) down
	@$(scale_down)

.PHONY: reset
reset: ## make down, drop the stack's database and Redis keys, remove .devstack (next make up starts clean)
	@$(scale_down)
	@$(devstack) reset

##@ Build and test

.PHONY: build
build: ## Compile every module
	@for m in $(MODULES); do echo "==> go build $$m"; (cd $$m && go build ./...); done

# make test's stages, as name:time limit:targets (tools/ci/stage.sh times and bounds each; .ci/run
# adds deps before them); the limits are a fresh machine's, with room. The stack's stages
# hold the machine's fixed ports and run one after another, the fault suite first: it brings its
# own PostgreSQL and Redis, so the side stages' tests (databases of their own on the machine's) and
# the charts' API server can run beside it, at the lowest priority so that the stack's
# timing-bound checks get the cores first; on a fresh machine the Kubernetes tools build then too
# (.ci/run), and the Kubernetes stages come last in each lane. .ci/run puts lint at the head of
# the side lane (CI_LINT_STAGE), where it type-checks while the fault suite waits on its faults.
TEST_STAGES_STACK := faults:25m:test-faults e2e:15m:test-e2e scale:20m:test-scale node:30m:test-kube-node
TEST_STAGES_SIDE := $(CI_LINT_STAGE) unit:35m:test-unit apidocs:10m:test-apidocs charts:30m:test-charts,images-test

# run_stages LANE: runs the stages of LANE in order, each through tools/ci/stage.sh, until one fails.
run_stages = for s in $(1); do IFS=: read -r name limit targets <<<"$$s"; \
	  tools/ci/stage.sh run "$$name" "$$limit" $(2) $(MAKE) --no-print-directory $${targets//,/ } || exit 1; done

.PHONY: test
test: ## Every test, with a table of the stages' times: unit and component, the OpenAPI lint, end-to-end through the ingress, chart checks against a real API server and the single-node cluster, the fault suite, the scale-out shape
	@if [ -z "$${STAGE_LOG:-}" ]; then export STAGE_LOG=$$(mktemp); trap 'tools/ci/stage.sh table; rm -f "$$STAGE_LOG"' EXIT; fi; \
	side_log=$$(mktemp); \
	( $(call run_stages,$(TEST_STAGES_SIDE),nice -n 19) ) >"$$side_log" 2>&1 & side=$$!; \
	stack_rc=0; ( $(call run_stages,$(TEST_STAGES_STACK),) ) || stack_rc=$$?; \
	side_rc=0; wait $$side || side_rc=$$?; \
	printf '\n==> the stages beside the stack'"'"'s (%s), as they printed:\n' "$(foreach s,$(TEST_STAGES_SIDE),$(firstword $(subst :, ,$(s))))"; \
	cat "$$side_log"; rm -f "$$side_log"; \
	[ $$stack_rc -eq 0 ] && [ $$side_rc -eq 0 ]

# make repeat STAGE=scale N=10: one stage of make test N times in a row, make down after each,
# then every run's row and how many were green. A stage that passes once and fails the next
# blocks everyone, so a stage is called steady only after such a series (docs/ci.md).
N ?= 10
.PHONY: repeat
repeat: ## Run one stage of make test N times (STAGE=scale N=10), make down after each; prints each run's time and outcome
	@spec=$$(printf '%s\n' $(TEST_STAGES_STACK) $(TEST_STAGES_SIDE) | grep "^$(STAGE):") || \
	  { echo "error: STAGE=$(STAGE) is not a stage of make test ($(foreach s,$(TEST_STAGES_STACK) $(TEST_STAGES_SIDE),$(firstword $(subst :, ,$(s)))))" >&2; exit 2; }; \
	IFS=: read -r name limit targets <<<"$$spec"; \
	STAGE_LOG=$$(mktemp); export STAGE_LOG; failed=0; \
	for i in $$(seq $(N)); do \
	  tools/ci/stage.sh run "$$name $$i/$(N)" "$$limit" $(MAKE) --no-print-directory $${targets//,/ } || failed=$$((failed + 1)); \
	  $(MAKE) --no-print-directory down >/dev/null || true; \
	done; \
	tools/ci/stage.sh table; rm -f "$$STAGE_LOG"; \
	echo "==> $$name: $$(($(N) - failed)) of $(N) green"; [ $$failed -eq 0 ]

.PHONY: test-unit
test-unit: deps ## go test -race over the workspace (component tests use the local PostgreSQL and Redis), then the OpenAPI property tests' counts
	@echo "==> go test -race $(MODULES)"
	@report=$$(mktemp) && trap 'rm -f "$$report"' EXIT && \
	  OPENAPITEST_REPORT="$$report" go test -race -count=1 $(PACKAGES); rc=$$?; \
	  echo "==> the OpenAPI property tests (libs/openapitest, Contract.Probe):"; cat "$$report"; exit $$rc

.PHONY: test-apidocs
test-apidocs: $(REDOCLY) $(TS_SDK) ## Lint every service's openapi.yaml and the merged reference (libs/apidocs) with Redocly's recommended rules (redocly.yaml); type-check a TypeScript client of the merged document (openapi-typescript + openapi-fetch)
	@echo "==> redocly lint (recommended rules, redocly.yaml)"
	@REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true $(REDOCLY) lint --format=summary libs/apidocs/openapi.json services/*/api/openapi.yaml
	@echo "==> openapi-typescript types of the merged document, type-checked with openapi-fetch (tools/sdk/typescript)"
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && cp tools/sdk/typescript/check.ts tools/sdk/typescript/tsconfig.json "$$tmp/" && \
	  ln -s $(TS_SDK_DIR)/node_modules "$$tmp/node_modules" && \
	  $(TS_SDK) libs/apidocs/openapi.json -o "$$tmp/api.d.ts" >/dev/null && \
	  $(TS_SDK_DIR)/node_modules/.bin/tsc -p "$$tmp/tsconfig.json"

$(TS_SDK):
	@command -v npm >/dev/null || { echo "error: npm is not installed (apt-get install nodejs npm)" >&2; exit 1; }
	@echo "==> installing $(TS_SDK_PACKAGES) into $(TS_SDK_DIR) (once)"
	@mkdir -p $(TS_SDK_DIR)
	@npm install --no-audit --no-fund --no-save --prefix $(TS_SDK_DIR) $(TS_SDK_PACKAGES) >/dev/null

$(REDOCLY):
	@command -v npm >/dev/null || { echo "error: npm is not installed (apt-get install nodejs npm; Node.js 20.19 or later)" >&2; exit 1; }
	@echo "==> installing @redocly/cli $(REDOCLY_VERSION) into $(REDOCLY_DIR) (once)"
	@mkdir -p $(REDOCLY_DIR)
	@npm install --no-audit --no-fund --no-save --prefix $(REDOCLY_DIR) @redocly/cli@$(REDOCLY_VERSION) >/dev/null

.PHONY: test-dashboards
test-dashboards: $(DASHBOARD_LINTER) ## Lint every Grafana dashboard of the chart with grafana/dashboard-linter --strict (rules disabled with reasons in charts/bizassist/dashboards/.lint)
	@echo "==> dashboard-linter --strict (charts/bizassist/dashboards/.lint)"
	@for f in charts/bizassist/dashboards/*.json; do out=$$($(DASHBOARD_LINTER) lint --strict "$$f" 2>&1) || { echo "$$f:"; echo "$$out" | grep -v '^Checks that'; exit 1; }; done

$(DASHBOARD_LINTER):
	@echo "==> installing grafana/dashboard-linter $(DASHBOARD_LINTER_VERSION) into $(DASHBOARD_LINTER_DIR) (once)"
	@mkdir -p $(DASHBOARD_LINTER_DIR)
	@GOBIN=$(DASHBOARD_LINTER_DIR) GOWORK=off GOFLAGS= go install github.com/grafana/dashboard-linter@$(DASHBOARD_LINTER_VERSION)

.PHONY: test-e2e
test-e2e: up $(AXE) ## make up, then the tools/e2e suite against it (the console's in headless Chromium)
	@echo "==> go test tools/e2e"
	@BIZASSIST_E2E=1 AXE_CORE_JS=$(AXE) go test -count=1 -p 1 ./tools/e2e/...

# The machine-wide lock every stack run takes (one stack per machine: fixed ports).
STACK_LOCK := /tmp/bizassist-stack.lock

.PHONY: test-faults
test-faults: ## Fault suite (tools/faults): its own PostgreSQL and Redis, make up REPLICAS=2, each fault under load; prints the table (FAULTS_ARGS="-only pg-restart"). Takes the stack lock: do not wrap it in flock
	@echo "==> go run tools/faults (holding $(STACK_LOCK))"
	@flock -o $(STACK_LOCK) go run ./tools/faults $(FAULTS_ARGS)

# The cluster shape's seeds and replica port, as make up REDIS=cluster PG_REPLICA=1 starts them (lib.sh).
SCALE_TEST_ENV := TEST_REDIS_CLUSTER_ADDRS=127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103 TEST_DATABASE_REPLICA_PORT=5442

.PHONY: test-scale
test-scale: $(AXE) ## The scale-out shape: the Redis-facing libs' and the event chain's tests on a local Redis Cluster and replica, the e2e suite on make up REDIS=cluster PG_REPLICA=1 REPLICAS=2, then a Redis master killed under load
	@tools/devstack/redis-cluster.sh up
	@tools/devstack/pg-replica.sh up
	@echo "==> libs on the Redis Cluster and the PostgreSQL replica: events, rediskit, ratelimit, authjwt, pgkit"
	@cd libs && $(SCALE_TEST_ENV) go test -race -count=1 ./events/ ./rediskit/... ./ratelimit/ ./authjwt/ ./pgkit/
	@# After the libs, whose isolation test stops a replica of the cluster; the two services at once.
	@echo "==> the event chain's component tests on the Redis Cluster: leads, integrations"
	@$(SCALE_TEST_ENV) go test -race -count=1 ./services/leads/internal/service/ ./services/integrations/internal/service/
	@$(MAKE) --no-print-directory up REDIS=cluster PG_REPLICA=1 REPLICAS=2
	@echo "==> go test tools/e2e (cluster shape)"
	@BIZASSIST_E2E=1 AXE_CORE_JS=$(AXE) go test -count=1 -p 1 ./tools/e2e/...
	@echo "==> fault: a Redis master killed during 100 inbound events/s (tools/loadgen/faults)"
	@go run ./tools/loadgen -strict -env .devstack/env -scenarios tools/loadgen/faults

$(AXE):
	@command -v npm >/dev/null || { echo "error: npm is not installed (apt-get install nodejs npm)" >&2; exit 1; }
	@echo "==> installing axe-core $(AXE_VERSION) into $(AXE_DIR) (once)"
	@mkdir -p $(AXE_DIR)
	@npm install --no-audit --no-fund --no-save --prefix $(AXE_DIR) axe-core@$(AXE_VERSION) >/dev/null

.PHONY: bench
bench: up ## Every benchmark: load scenarios through the ingress (BENCH_ARGS="-run verify -duration 5s"), then in-process ones
	@echo "==> leads: the 1,000,000-business bench catalog (once; a few minutes the first time)"
	@services/leads/bench-seed.sh
	@echo "==> load scenarios through the ingress (tools/loadgen/scenarios)"
	@go run ./tools/loadgen -env .devstack/env -scenarios tools/loadgen/scenarios -vacuum -idle 60s $(BENCH_ARGS)
	@$(MAKE) --no-print-directory bench-inprocess

.PHONY: bench-scale
bench-scale: up ## Scale curves (not in make test; about an hour): catalog at 1M and 10M businesses, health recompute at 100k and 1M accounts, usage at 1M events, webhook fan-out to 1/10/100 subscriptions (tools/loadgen/bench-scale.sh)
	@tools/loadgen/bench-scale.sh

.PHONY: bench-inprocess
bench-inprocess: deps ## Benchmarks that need no stack: libs, analytics writer and recompute, integrations delivery
	@echo "==> libs: token verification, rate limiter, outbox relay"
	@cd libs && go test -run '^$$' -bench 'BenchmarkVerify|BenchmarkAllow|BenchmarkRelay' -benchtime 2000x ./authjwt/ ./ratelimit/ ./events/
	@echo "==> analytics: durable usage writer, one account's reservations, recompute of 100,000 accounts"
	@cd services/analytics && go test -run '^$$' -bench 'UsageWriter' -benchtime 50000x ./internal/adapters/postgres/
	@cd services/analytics && go test -run '^$$' -bench 'ReserveHTTP' -benchtime 5000x ./internal/service/
	@cd services/analytics && go test -run '^$$' -bench 'Recompute100k' -benchtime 1x ./internal/adapters/postgres/
	@echo "==> integrations: signed deliveries to a loopback receiver, event to delivery"
	@cd services/integrations && go run ./cmd/integrations-bench -rate 1500 -duration 10s -subs 5

##@ Code hygiene

.PHONY: lint
lint: $(GOLANGCI_LINT) ## gofmt check, go vet and golangci-lint over the workspace; shellcheck
	@echo "==> gofmt"
	@unformatted=$$(gofmt -l $(MODULES)); if [ -n "$$unformatted" ]; then echo "not gofmt-clean (run make fmt):"; echo "$$unformatted"; exit 1; fi
	@echo "==> go vet $(MODULES)"
	@go vet $(PACKAGES)
	@echo "==> golangci-lint $(MODULES)"
	@$(GOLANGCI_LINT) run --allow-parallel-runners $(PACKAGES)
	@if command -v shellcheck >/dev/null; then echo "==> shellcheck"; shellcheck -S warning -x -P SCRIPTDIR $(SHELL_SCRIPTS); \
	else echo "==> shellcheck is not installed: shell scripts not checked (apt-get install shellcheck)"; fi

$(GOLANGCI_LINT):
	@echo "==> installing golangci-lint $(GOLANGCI_LINT_VERSION) into $(GOLANGCI_LINT_DIR) (once)"
	@mkdir -p $(GOLANGCI_LINT_DIR)
	@GOBIN=$(GOLANGCI_LINT_DIR) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

# One run per module: govulncheck refuses a directory that is not a module's, such as the root.
.PHONY: vulncheck
vulncheck: $(GOVULNCHECK) ## govulncheck on every module: known vulnerabilities in the code paths we call (needs vuln.go.dev)
	@for m in $(MODULES); do echo "==> govulncheck $$m"; (cd $$m && $(GOVULNCHECK) ./...); done

$(GOVULNCHECK):
	@echo "==> installing govulncheck $(GOVULNCHECK_VERSION) into $(GOVULNCHECK_DIR) (once)"
	@mkdir -p $(GOVULNCHECK_DIR)
	@GOBIN=$(GOVULNCHECK_DIR) go install golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION)

# GOWORK=off so that "direct" means the module's own go.mod; -e so that a module whose retractions
# the proxy will not list does not stop the others.
.PHONY: outdated
outdated: ## The direct dependencies of every module that have a newer release (dependabot proposes them weekly)
	@for m in $(MODULES); do echo "==> $$m"; (cd $$m && GOWORK=off go list -e -m -u \
		-f '{{if and (not .Main) (not .Indirect) .Update}}  {{.Path}} {{.Version}} -> {{.Update.Version}}{{end}}' all \
		| grep . || echo "  up to date"); done

.PHONY: fmt
fmt: $(GOLANGCI_LINT) ## Format every module as make lint checks it: gofmt, and goimports' three import groups
	@$(GOLANGCI_LINT) fmt $(PACKAGES)

.PHONY: tidy
tidy: ## go mod tidy in every module
	@for m in $(MODULES); do echo "==> go mod tidy $$m"; (cd $$m && go mod tidy); done

# Kubernetes: images, chart tests, kind (owned with the charts).
include mk/kube.mk
