# TrustScreen Reviewer. On a fresh Debian machine:
#   make demo   opens the console on the built-in demo service
#   make test   runs every test
# Both install what is missing first (Debian packages for cgo, Go modules).

GO      ?= go
BIN     := bin/reviewer
# The PDF renderer, a program of its own that the console runs when a PDF
# is looked at (cmd/reviewer-pdf); it is found beside the console.
PDFBIN  := bin/reviewer-pdf
# Fyne (OpenGL, X11) and go-sqlite3 are cgo.
DEB_BUILD := gcc pkg-config libgl1-mesa-dev xorg-dev
# For screenshots: a virtual display, a screenshot tool, a way to press keys.
DEB_SHOT  := xvfb imagemagick xdotool x11-utils jq
# For the keyboard walk: the screenshot tools, and what reads its results.
DEB_WALK  := $(DEB_SHOT) sqlite3
# For the performance suite: the sqlite3 shell (the listing's peer), a
# virtual display and xev (the window's figures).
DEB_BENCH := sqlite3 xvfb x11-utils
# The performance suite's scale and display (make bench BENCH_BATCHES=100000).
BENCH_BATCHES     ?= 10000
BENCH_RUNS        ?= 5
BENCH_WINDOW_RUNS ?= 12
BENCH_DISPLAY     ?= :95

export LANG := en_US.UTF-8
export CGO_ENABLED := 1
# Fyne parses its 4 MB emoji font again for every text style it draws
# (regular, and bold for every button) and keeps each copy: 11 MB of the
# window's memory. The console shows no emoji, and the symbols it draws
# (✓ ✗ ↻ ▲) come from the system's fonts. Everything here, the floor
# programs of `make bench` included, is built without it.
export GOFLAGS := $(strip $(GOFLAGS) -tags=no_emoji)

.PHONY: deps deps-shot deps-bench build demo test fuzz bench bench-build bench-smoke reliability screenshot walk package vet fmt-check clean

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

deps-bench: deps
	$(call apt_install,$(DEB_BENCH))

build: deps
	$(GO) build -o $(BIN) .
	$(GO) build -o $(PDFBIN) ./cmd/reviewer-pdf

demo: build
	./$(BIN) --demo

vet: deps
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Every test: real SQLite files, the reference service on loopback, real
# sockets, Fyne's headless test driver. The workflow, client, store and
# window suites also run under the race detector.
test: deps vet fmt-check bench-smoke
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./client/ ./review/ ./store/ ./ui/
	$(MAKE) --no-print-directory fuzz

# Each fuzz target for a few seconds (their seed corpora, under
# testdata/fuzz, also run in every plain `go test`). The budget is a count
# of runs, not a duration: Go 1.26's fuzz coordinator can report a spurious
# "context deadline exceeded" when a duration runs out while a starved
# worker is mid-run (golang/go#75804, fixed in Go 1.27); a count has no
# deadline to race. FUZZTIME=1m (or 1000000x) for a longer hunt.
FUZZTIME ?= 10000x
FUZZ_TARGETS := \
	./client/:FuzzBatchPageDecoder ./client/:FuzzItemDecoder ./client/:FuzzErrorBody ./client/:FuzzRetryAfter ./client/:FuzzDocumentType \
	./policy/:FuzzCheckFile ./internal/safetext/:FuzzCSVCell ./internal/safetext/:FuzzLine ./ui/:FuzzTheWindowDrawsOutsideTextEscaped \
	./internal/document/:FuzzOpen ./internal/jpegscale/:FuzzDecodeMatchesStandardLibrary
fuzz: deps
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
		out=$$($(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg 2>&1) || { echo "$$out"; exit 1; }; done

# The fault matrix through a real TCP proxy (toxiproxy, in-process) and
# 20 SIGKILLs each during flushes, syncs and actions; prints the matrix (see
# docs/reliability.md). Under 10 minutes on 2 cores; `make test` runs a
# short form of it.
reliability: deps
	@mkdir -p bin && rm -f bin/reliability-matrix.txt bin/reliability-matrix.txt.bulk
	@RELIABILITY=full RELIABILITY_REPORT=$(CURDIR)/bin/reliability-matrix.txt \
		$(GO) test -count=1 -parallel 8 -timeout 10m ./reliability/; status=$$?; \
		cat bin/reliability-matrix.txt bin/reliability-matrix.txt.bulk 2>/dev/null; exit $$status

# The performance suite (docs/performance.md): the real binary against the
# reference service with BENCH_BATCHES batches of 10 items, each figure
# against its floor or peer in the same run; exits non-zero when a median
# misses its target. Then the store's own benchmarks.
bench: deps-bench bench-build
	@status=0; ./bin/perf -batches $(BENCH_BATCHES) -runs $(BENCH_RUNS) -window-runs $(BENCH_WINDOW_RUNS) -display $(BENCH_DISPLAY) || status=$$?; \
	$(GO) test -run '^$$' -bench . -benchtime 20x ./store/ && \
	echo "the viewer's first view of a 10 MiB JPEG (5200x3900 to 1240x700), against the standard library's decode and scale:" && \
	$(GO) test -run '^$$' -bench 'FirstView|FullResolution' -benchtime 5x -count 5 ./internal/document/ | tee bin/firstview.txt && \
	./scripts/firstview-check.sh bin/firstview.txt || status=1; exit $$status

bench-build: deps
	$(GO) build -o $(BIN) .
	$(GO) build -o $(PDFBIN) ./cmd/reviewer-pdf
	$(GO) build -o bin/floor-sync ./bench/floor/sync
	$(GO) build -o bin/floor-window ./bench/floor/window
	$(GO) build -o bin/perf ./bench/perf

# A few seconds of the suite at a tiny scale, so that it cannot rot: every
# step runs and is checked, no target is enforced (at this scale the process
# start is the whole figure), no window.
bench-smoke: deps bench-build
	$(call apt_install,sqlite3)
	./bin/perf -batches 50 -runs 1 -warmup 0 -enforce=false

screenshot: deps-shot build
	./scripts/screenshot.sh $(BIN) docs

# The keyboard-only walk (scripts/keyboard-walk.sh): a batch triaged, a
# search, a file request, a snooze and a saved view with keys alone, in the
# real window under Xvfb against demo-api, then checked through the command
# line; a screenshot per step in WALK_SHOTS (default: a new temporary folder).
WALK_SHOTS ?=
walk: deps build
	$(call apt_install,$(DEB_WALK))
	./scripts/keyboard-walk.sh $(BIN) $(WALK_SHOTS)

# A desktop bundle, reviewer.tar.xz (usr/local/bin/reviewer and
# reviewer-pdf, added by scripts/bundle-renderer.sh, the console's .desktop
# entry and icon, named by the app id, and a Makefile that installs them for
# one user or for all), by Fyne's packager from FyneApp.toml, around the
# binary of `make build` (the packager's own build would compile Fyne again
# from cold: 12 minutes on 2 cores). PACKAGE_BUNDLE=reviewer.tar.xz
# go test -run Bundle . checks what it holds.
FYNE_TOOLS := fyne.io/tools/cmd/fyne@v1.7.4
package: build
	GOFLAGS= $(GO) install $(FYNE_TOOLS)
	rm -f reviewer.tar.xz "TrustScreen Reviewer.tar.xz"
	@# The packager counts Build up in FyneApp.toml on every run: the build
	@# number is the project's to set (with Version), so it is put back.
	cp FyneApp.toml bin/FyneApp.toml.kept
	$$($(GO) env GOPATH)/bin/fyne package --os linux --executable $(BIN); status=$$?; \
		cp bin/FyneApp.toml.kept FyneApp.toml; rm -f bin/FyneApp.toml.kept; exit $$status
	mv "TrustScreen Reviewer.tar.xz" reviewer.tar.xz
	./scripts/bundle-renderer.sh reviewer.tar.xz $(PDFBIN)
	PACKAGE_BUNDLE=$(CURDIR)/reviewer.tar.xz $(GO) test -count=1 -run Bundle .

clean:
	rm -rf bin reviewer.tar.xz
