# examtui — build, run and test. Every target installs what it needs (Debian packages only when
# missing, Go tools into ./bin), so a fresh Debian machine as root needs nothing but `make run`.

SHELL        := /bin/bash
GO           ?= go
BIN          := $(CURDIR)/bin
EXAMTUI      := $(BIN)/examtui
LIVEKIT      := $(BIN)/livekit-server
STATICCHECK  := $(BIN)/staticcheck
MERMAID      := $(BIN)/mermaid/node_modules/mermaid/package.json
# ltijs, an independent LTI 1.3 tool the LTI tests run against the stand-in platform
# (tools/ltijs, pinned by its lock).
LTIJS        := $(BIN)/ltijs/node_modules/ltijs/package.json
# LiveKit Agents (Node), the peer voice agent of the reply-latency benchmark
# (BenchmarkPeerReplyLatency; tools/lkagents, pinned by its lock). Not part of `tools`: only
# that benchmark needs it. onnxruntime-node's install script would fetch CUDA libraries from
# nuget.org; the CPU build it ships is all Silero's VAD needs.
LKAGENTS     := $(BIN)/lkagents/node_modules/@livekit/agents/package.json
LIVEKIT_VER  := v1.13.5
STATICCHECK_VER := v0.8.2
# ajv checks the exam JSON Schema in strict mode (spec tests); npm installs it into bin/npm.
AJV_VER      := 8.17.1
AJV          := $(BIN)/npm/node_modules/ajv/package.json

# Node and npm from Debian when npm is missing (Debian's nodejs comes without npm; installing
# both is a no-op for what is there).
NEED_NPM = command -v npm >/dev/null || { export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; }

# npm_tool installs tools/$(1) (its prerequisites: package.json, the lock and its script) into
# bin/$(1) with npm ci, $(2) set in npm's environment.
define npm_tool
@$(NEED_NPM)
@mkdir -p $(BIN)/$(1)
cp $^ $(BIN)/$(1)/
cd $(BIN)/$(1) && $(2) npm ci --no-audit --no-fund --loglevel=error
@touch $@
endef
# The candidate's join page (cmd/examtui/internal/candidate/web): livekit-client, esbuild and axe-core
# (the page tests' accessibility check) pinned in src/package-lock.json; bundled into dist/, which
# the binary embeds.
WEB_SRC      := cmd/examtui/internal/candidate/web/src
WEB_DIST     := cmd/examtui/internal/candidate/web/dist/index.html
VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS      := -X main.version=$(VERSION)
APT_PACKAGES := pkg-config portaudio19-dev libopus-dev libopusfile-dev libsoxr-dev espeak-ng sox tmux pocketsphinx pocketsphinx-en-us
# What the tests need beyond that: postgresql (the tests start throw-away servers of their own,
# internal/pgtest; its binaries are under /usr/lib/postgresql/<version>/bin, which pgtest finds),
# graphviz (examtui graph's DOT output is rendered), libxml2-utils (xmllint checks JUnit reports),
# nodejs/npm (ajv and the Mermaid parser), python3 (the Pipecat module's stdlib tests) and
# chromium (the candidate page's tests drive it headless, internal/browsertest).
TEST_APT_PACKAGES := postgresql graphviz libxml2-utils nodejs python3 chromium
TESTFLAGS    ?= -race -timeout 40m

.PHONY: all run build web test test-short lint bench test-stress deps test-deps apt tools livekit-server staticcheck ajv mermaid ltijs lkagents clean

all: build

run: deps build
	$(EXAMTUI)

build: deps web
	$(GO) build -ldflags '$(LDFLAGS)' -o $(EXAMTUI) ./cmd/examtui

# The candidate page: npm ci (Node and npm from Debian when missing), then esbuild bundles it.
web: $(WEB_DIST)
$(WEB_DIST): $(WEB_SRC)/package.json $(WEB_SRC)/package-lock.json $(WEB_SRC)/build.mjs $(WEB_SRC)/index.html $(WEB_SRC)/page.js $(WEB_SRC)/page.css $(WEB_SRC)/livekit.js $(WEB_SRC)/favicon.svg
	@$(NEED_NPM)
	cd $(WEB_SRC) && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build

# The ALSA null device gives PortAudio a working default device on machines without a sound
# card, so the real capture path runs in tests.
test: test-deps tools build
	EXAMTUI_LIVEKIT_SERVER=$(LIVEKIT) EXAMTUI_BIN=$(EXAMTUI) ALSA_CONFIG_PATH=$(CURDIR)/testdata/asound-null.conf \
		$(GO) test $(TESTFLAGS) ./...

# The quick loop: tests that need a LiveKit server, PortAudio or espeak-ng skip themselves.
test-short: test-deps ajv mermaid
	ALSA_CONFIG_PATH=$(CURDIR)/testdata/asound-null.conf $(GO) test -short ./...

# By hand, not on CI: the room paths (joining, rejoining, a dropped network, spoken exams,
# barge-in and backchannels, worker dispatch) STRESS_COUNT times in a row, while stress-ng
# (Debian) loads CPU, memory and I/O with twice as many workers as cores each. STRESS_RUN picks
# those tests out of the room, room-check and candidate-page suites (STRESS_PKGS), STRESS_E2E
# out of the binary's end-to-end tests; docs/testing.md says what they cover and how long the
# run takes. STRESS_RUN=. runs the whole suites (hours at -count=5).
STRESS_COUNT ?= 5
STRESS_PKGS  ?= ./transport/livekit/ ./cmd/examtui/internal/roomcheck/ ./cmd/examtui/internal/candidate/web/
STRESS_RUN   ?= ^(TestRoomVoiceBackchannels|TestRoomVoiceBargeIn|TestCandidateLeavesAndRejoins|TestReadyReplaysEverything|TestRunSpokenPauseAndBargeIn|TestPageReloadMidExam|TestPageNetworkDrop)$$
STRESS_E2E   ?= ^(TestTestCommandThroughRoom|TestTokenDispatchStartsExamOnJoin)$$
STRESS_FLAGS ?=
test-stress: test-deps livekit-server build
	@$(MAKE) --no-print-directory apt PACKAGES=stress-ng
	@n=$$(( 2 * $$(nproc) )); tmp=$$(mktemp -d); \
	echo "stress-ng: $$n CPU, $$n memory and $$n I/O workers; room-path tests -count=$(STRESS_COUNT)"; \
	stress-ng --cpu $$n --vm $$n --vm-bytes 64M --iomix $$n --iomix-bytes 32M --temp-path $$tmp --timeout 0 --quiet & sp=$$!; \
	trap 'kill $$sp 2>/dev/null; wait $$sp 2>/dev/null; rm -rf $$tmp' EXIT; \
	export EXAMTUI_LIVEKIT_SERVER=$(LIVEKIT) EXAMTUI_BIN=$(EXAMTUI) ALSA_CONFIG_PATH=$(CURDIR)/testdata/asound-null.conf; \
	start=$$(date +%s); \
	$(GO) test $(STRESS_FLAGS) -count=$(STRESS_COUNT) -timeout 180m -run '$(STRESS_RUN)' $(STRESS_PKGS); rc=$$?; \
	$(GO) test $(STRESS_FLAGS) -count=$(STRESS_COUNT) -timeout 180m -run '$(STRESS_E2E)' ./cmd/examtui/ || rc=1; \
	echo "test-stress: exit $$rc after $$(( ($$(date +%s) - start) / 60 )) min; load average $$(cut -d' ' -f1-3 /proc/loadavg)"; exit $$rc

lint: staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Debian packages, installed only when one is missing (apt-get needs root, as on CI).
deps:
	@$(MAKE) --no-print-directory apt PACKAGES="$(APT_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory apt PACKAGES="$(APT_PACKAGES) $(TEST_APT_PACKAGES)"
	@# The package starts a cluster of its own; the tests never use it (they run their own server).
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "postgresql server binaries missing under /usr/lib/postgresql/*/bin"; exit 1; }

apt:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

tools: livekit-server staticcheck ajv mermaid ltijs

livekit-server: $(LIVEKIT)
$(LIVEKIT):
	@mkdir -p $(BIN)
	@echo "building livekit-server $(LIVEKIT_VER) (a few minutes, once)"
	cd $$(mktemp -d) && GOBIN=$(BIN) GOFLAGS=-mod=mod $(GO) install github.com/livekit/livekit-server/cmd/server@$(LIVEKIT_VER)
	mv $(BIN)/server $(LIVEKIT)

staticcheck: $(STATICCHECK)
$(STATICCHECK):
	@mkdir -p $(BIN)
	cd $$(mktemp -d) && GOBIN=$(BIN) GOFLAGS=-mod=mod $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VER)

ajv: $(AJV)
$(AJV):
	@$(NEED_NPM)
	@mkdir -p $(BIN)/npm
	npm install --prefix $(BIN)/npm --no-audit --no-fund --save-exact ajv@$(AJV_VER)

# The real Mermaid parser (pinned in tools/mermaid/package-lock.json) for the tests of
# `examtui graph --format mermaid`; Node and npm come from Debian when missing.
mermaid: $(MERMAID)
$(MERMAID): tools/mermaid/package.json tools/mermaid/package-lock.json tools/mermaid/check.mjs
	$(call npm_tool,mermaid,)

ltijs: $(LTIJS)
$(LTIJS): tools/ltijs/package.json tools/ltijs/package-lock.json tools/ltijs/tool.js
	$(call npm_tool,ltijs,)

# onnxruntime-node's install script would fetch CUDA libraries from api.nuget.org; the CPU
# build it ships is all Silero needs.
lkagents: $(LKAGENTS)
$(LKAGENTS): tools/lkagents/package.json tools/lkagents/package-lock.json tools/lkagents/agent.mjs
	$(call npm_tool,lkagents,ONNXRUNTIME_NODE_INSTALL_CUDA=skip)

clean:
	rm -rf $(BIN)
