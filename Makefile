# examtui — build, run and test. Every target installs what it needs (Debian packages only when
# missing, Go tools into ./bin), so a fresh Debian machine as root needs nothing but `make run`.

SHELL        := /bin/bash
GO           ?= go
BIN          := $(CURDIR)/bin
EXAMTUI      := $(BIN)/examtui
LIVEKIT      := $(BIN)/livekit-server
STATICCHECK  := $(BIN)/staticcheck
LIVEKIT_VER  := v1.13.5
STATICCHECK_VER := v0.8.2
VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS      := -X main.version=$(VERSION)
# postgresql: the tests start a throw-away PostgreSQL server (internal/pgtest); its binaries are
# not on PATH but under /usr/lib/postgresql/<version>/bin, which pgtest finds.
APT_PACKAGES := pkg-config portaudio19-dev libopus-dev libopusfile-dev libsoxr-dev espeak-ng sox tmux pocketsphinx pocketsphinx-en-us postgresql
TESTFLAGS    ?= -race -timeout 40m

.PHONY: all run build test test-short lint bench deps tools livekit-server staticcheck clean

all: build

run: deps build
	$(EXAMTUI)

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o $(EXAMTUI) ./cmd/examtui

# The ALSA null device gives PortAudio a working default device on machines without a sound
# card, so the real capture path runs in tests.
test: deps tools build
	EXAMTUI_LIVEKIT_SERVER=$(LIVEKIT) EXAMTUI_BIN=$(EXAMTUI) ALSA_CONFIG_PATH=$(CURDIR)/testdata/asound-null.conf \
		$(GO) test $(TESTFLAGS) ./...

test-short: deps
	$(GO) test -short ./...

lint: staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Debian packages, installed only when one is missing (apt-get needs root, as on CI).
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@# The package starts a cluster of its own; the tests never use it (they run their own server).
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "postgresql server binaries missing under /usr/lib/postgresql/*/bin"; exit 1; }

tools: livekit-server staticcheck

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

clean:
	rm -rf $(BIN)
