# Tally: `make run` serves the APIs, `make test` runs every test against a real PostgreSQL.
SHELL := /bin/bash
.DEFAULT_GOAL := help
BIN := node_modules/.bin
NODE_TS := node --import tsx/esm

.PHONY: help install run build generate check-generated lint format lint-spec sdk release-contract typecheck test test-long fuzz mock conformance admin bench bench-ledger bench-ledger-balances bench-billing bench-sandbox bench-dashboard clean clean-data

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

node_modules/.installed: package.json package-lock.json $(wildcard patches/*.patch)
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

install: node_modules/.installed ## Install dependencies (npm ci) when package-lock.json changed

# V8's heap for a server under load: a 32 MB semi-space lets request garbage die young, and old
# space grows 2x between full collections instead of up to 4x: 40-50 MiB less RSS at the same speed
# (bench/HISTORY.md, 2026-11-29, sixth session). The test harness starts servers with these too.
SERVER_NODE_FLAGS ?= --max-semi-space-size=32 --heap-growing-percent=100

# Two malloc arenas instead of one per thread (V8's and libuv's): 15-40 MiB less RSS under load, no
# measured cost (bench/HISTORY.md, 2026-11-29). Set MALLOC_ARENA_MAX to override.
run: build ## Serve on PORT (8080); embedded PostgreSQL in .data/ unless DATABASE_URL is set
	MALLOC_ARENA_MAX=$${MALLOC_ARENA_MAX:-2} node $(SERVER_NODE_FLAGS) dist/src/main.js

build: install ## Compile the server to JavaScript in dist/ (esbuild, file by file); make run serves it
	$(NODE_TS) src/cli/build.ts

generate: install ## Regenerate generated/ from spec/ (commit the result)
	$(BIN)/openapi-typescript spec/billing.openapi.yaml -o generated/billing.ts --alphabetize
	$(BIN)/openapi-typescript spec/sandbox.openapi.yaml -o generated/sandbox.ts --alphabetize
	$(BIN)/graphql-codegen --config codegen.yml --silent

check-generated: install ## Fail when generated/ is stale against spec/
	$(BIN)/vitest run --config test/vitest.config.ts test/spec/generated.test.ts

PRETTIER_FILES := "src/**/*.ts" "test/**/*.ts" "bench/**/*.ts" "*.js"

lint: install ## Lint src, test and bench (typescript-eslint, type-checked rules) and check their format (Prettier)
	$(BIN)/eslint --max-warnings=0 .
	$(BIN)/prettier --check --log-level=warn $(PRETTIER_FILES)

format: install ## Format src, test and bench with Prettier
	$(BIN)/prettier --write --log-level=warn $(PRETTIER_FILES)

lint-spec: install ## Lint the OpenAPI contracts (billing, sandbox) with Spectral and Redocly CLI (no errors, no warnings)
	$(BIN)/spectral lint --fail-severity=warn --ruleset spec/.spectral.yaml spec/billing.openapi.yaml spec/sandbox.openapi.yaml
	REDOCLY_TELEMETRY=off $(BIN)/redocly lint --config spec/redocly.yaml --format=summary spec/billing.openapi.yaml spec/sandbox.openapi.yaml

release-contract: install ## Make spec/ the released contract (spec/released/), which make test's breaking-change gate compares with
	$(NODE_TS) test/spec/contractChanges.ts release

sdk: install ## Generate clients from spec/ into .sdk/ (hey-api, orval, graphql-codegen client preset) and type-check them
	$(NODE_TS) test/sdk/generate.ts

typecheck: install ## Type-check src, test and bench, and the dashboard's browser code
	$(BIN)/tsc --noEmit -p tsconfig.json
	$(BIN)/tsc --noEmit -p src/dashboard/client/tsconfig.json

test: install ## Type-check and lint, then run every test (spec lint, drift check, unit, integration, contract, SDK)
	$(BIN)/tsc --noEmit -p tsconfig.json
	$(BIN)/tsc --noEmit -p src/dashboard/client/tsconfig.json
	$(BIN)/eslint --max-warnings=0 .
	$(BIN)/prettier --check --log-level=warn $(PRETTIER_FILES)
	@rm -f .vitest.json
	@status=0; $(BIN)/vitest run --config test/vitest.config.ts --reporter=default --reporter=json \
	  --outputFile.json=.vitest.json || status=$$?; \
	node -e 'const r=JSON.parse(require("fs").readFileSync(".vitest.json","utf8"));console.log(`$${r.numPassedTests} passed, $${r.numFailedTests} failed`)' \
	  || echo "0 passed, 1 failed"; exit $$status

test-long: install ## The balance-history oracle test with many more runs (PROPERTY_RUNS, default 5000)
	PROPERTY_RUNS=$${PROPERTY_RUNS:-5000} $(BIN)/vitest run --config test/vitest.config.ts test/property/balance-history.test.ts

.PHONY: screenshots
screenshots: install ## Refresh the README's screenshots (test/browser/screenshots/) from the browser tests, in headless Chromium
	UPDATE_SCREENSHOTS=1 $(BIN)/vitest run --config test/vitest.config.ts test/browser

.PHONY: test-crash
test-crash: install ## Crash suite: SIGKILL the server every few seconds and PostgreSQL once under writing clients, then check every write (CRASH_SECONDS=60, CRASH_SEED, CRASH_CLIENTS, CRASH_KILL_EVERY_MS); writes bench/results/crash.md
	$(NODE_TS) bench/crash.ts

fuzz: install ## Fuzz every operation with bad requests (FUZZ_REQUESTS=20000, FUZZ_SEED); writes bench/results/fuzz.md
	$(NODE_TS) bench/fuzz.ts

mock: install ## Stateless mocks: billing REST on 4010 (Tally's validation in front of Prism), ledger GraphQL on 4011
	@$(BIN)/prism mock -h 127.0.0.1 -p $${MOCK_PRISM_PORT:-4012} spec/billing.openapi.yaml & prism=$$!; \
	PRISM_URL=http://127.0.0.1:$${MOCK_PRISM_PORT:-4012} MOCK_REST_PORT=$${MOCK_REST_PORT:-4010} $(NODE_TS) src/mock/billingMock.ts & rest=$$!; \
	MOCK_GRAPHQL_PORT=$${MOCK_GRAPHQL_PORT:-4011} $(NODE_TS) src/mock/ledgerMock.ts & graphql=$$!; \
	trap 'kill $$prism $$rest $$graphql 2>/dev/null' EXIT INT TERM; \
	wait

conformance: install ## Every example of both contracts against a server: make conformance URL=... CLIENT_ID=... CLIENT_SECRET=... [ADMIN_TOKEN=...] [JUNIT=file]
	$(NODE_TS) src/conformance/cli.ts

admin: install ## Manage workspaces and API clients: make admin ARGS="help"
	$(NODE_TS) src/cli/admin.ts $(ARGS)

bench-ledger: install ## Posting benchmark: every phase (transfers, hot, first use, batches) beside the GraphQL floor and a minimal SQL ledger; writes bench/results/ledger-post.md (BENCH_PHASES, BENCH_RUNS, BENCH_POOL, BENCH_GROUPS_IN_FLIGHT for sweeps)
	$(NODE_TS) bench/ledger-post.ts

bench-ledger-balances: install ## Balance history reads at 1M vs 10k lines, backdated posts, hot account strong vs eventual; writes bench/results/ledger-balances.md
	$(NODE_TS) bench/ledger-balances.ts

bench-billing: install ## Billing request paths only (floor, REST read and list, invoice create and PATCH, transaction sync); writes bench/results/billing.md
	$(NODE_TS) bench/run.ts --billing

bench-dashboard: install ## The dashboard on a ledger of a million lines, in headless Chromium: time to open each page kind; writes bench/results/dashboard.md
	$(NODE_TS) bench/dashboard.ts

bench-sandbox: install ## Sandbox admin API: workspace creates, and save, reset and restore of a workspace of 10,000 entries and 1,000 invoices; writes bench/results/sandbox.md
	$(NODE_TS) bench/sandbox.ts

bench: install ## Request-path benchmark: Koa floor, GraphQL, REST reads, billing writes, 32 clients on a durable database (BENCH_BASELINE, BENCH_CASES, BENCH_STATEMENTS, BENCH_PG_SETTINGS); writes bench/results/requests.md
	$(NODE_TS) bench/run.ts

clean-data: install ## Remove the local database (.data/) and the folders Tally put in the temporary folder for this checkout
	$(NODE_TS) src/cli/cleanData.ts

clean: ## Remove installed packages and every local database folder (make clean-data), then node_modules and dist
	@if [ -f node_modules/.installed ]; then $(NODE_TS) src/cli/cleanData.ts; else rm -rf .data; fi
	rm -rf node_modules dist .vitest.json
