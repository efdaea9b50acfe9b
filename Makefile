# TrustScreen Reviewer. On a fresh Debian machine:
#   make demo   opens the console on the built-in demo service
#   make test   runs every test
# Both install what is missing first (Debian packages for cgo, Go modules).

GO      ?= go
BIN     := bin/reviewer
# Fyne (OpenGL, X11) and go-sqlite3 are cgo.
DEB_BUILD := gcc pkg-config libgl1-mesa-dev xorg-dev
# For screenshots: a virtual display, a screenshot tool, a way to press keys.
DEB_SHOT  := xvfb imagemagick xdotool x11-utils

export LANG := en_US.UTF-8
export CGO_ENABLED := 1

.PHONY: deps deps-shot build demo test bench reliability screenshot package vet fmt-check clean

# Installs the Debian packages that are not there yet (as root, or with sudo).
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		if [ "$$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

deps:
	$(call apt_install,$(DEB_BUILD))
	$(GO) mod download

deps-shot: deps
	$(call apt_install,$(DEB_SHOT))

build: deps
	$(GO) build -o $(BIN) .

demo: build
	./$(BIN) --demo

vet: deps
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Every test: real SQLite files, the reference service on loopback, real
# sockets, Fyne's headless test driver. The workflow and client suites also
# run under the race detector.
test: deps vet fmt-check
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./client/ ./review/ ./store/

# The fault matrix through a real TCP proxy (toxiproxy, in-process) and
# 20 SIGKILLs each during flushes, syncs and actions; prints the matrix (see
# docs/reliability.md). Under 10 minutes on 2 cores; `make test` runs a
# short form of it.
reliability: deps
	@mkdir -p bin && rm -f bin/reliability-matrix.txt
	@RELIABILITY=full RELIABILITY_REPORT=$(CURDIR)/bin/reliability-matrix.txt \
		$(GO) test -count=1 -parallel 8 -timeout 10m ./reliability/; status=$$?; \
		cat bin/reliability-matrix.txt 2>/dev/null; exit $$status

bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 20x ./store/

screenshot: deps-shot build
	./scripts/screenshot.sh $(BIN) docs

# A desktop bundle (binary, icon, .desktop file) with Fyne's packager.
FYNE_TOOLS := fyne.io/tools/cmd/fyne@v1.7.4
package: deps
	GOFLAGS= $(GO) install $(FYNE_TOOLS)
	$$($(GO) env GOPATH)/bin/fyne package --os linux --name reviewer

clean:
	rm -rf bin reviewer.tar.xz
