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
# For the tests: a CJK font for the PDF renderer to substitute for a
# font a PDF does not embed, and poppler's pdftoppm, the peer its pages
# are compared with (internal/document), with poppler-data: the CJK
# character collections' maps (Adobe-GB1, Adobe-Japan1), which poppler
# only recommends, so apt's --no-install-recommends leaves them out and
# pdftoppm draws such a PDF's text as nothing.
DEB_TEST  := fonts-wqy-microhei poppler-utils poppler-data
# For the performance suite: the sqlite3 shell (the listing's peer), a
# virtual display and xev (the window's figures).
DEB_BENCH := sqlite3 xvfb x11-utils libjpeg-turbo-progs xdotool poppler-utils poppler-data
# The performance suite's scale and display (make bench BENCH_BATCHES=100000).
BENCH_BATCHES     ?= 10000
BENCH_RUNS        ?= 5
BENCH_WINDOW_RUNS ?= 12
BENCH_DISPLAY     ?= :95
# The latency figures' large cache, in batches of 10 items (1,000,000
# items; its sync takes one to two minutes), beside 100 batches.
BENCH_LATENCY_BATCHES ?= 100000

export LANG := en_US.UTF-8
export CGO_ENABLED := 1
# Fyne parses its 4 MB emoji font again for every text style it draws
# (regular, and bold for every button) and keeps each copy: 11 MB of the
# window's memory. The console shows no emoji, and the symbols it draws
# (✓ ✗ ↻ ▲) come from the system's fonts. Everything here, the floor
# programs of `make bench` included, is built without it.
export GOFLAGS := $(strip $(GOFLAGS) -tags=no_emoji)

.PHONY: deps deps-shot deps-bench deps-test build demo test doors fuzz bench bench-documents bench-build bench-smoke reliability screenshot walk package windows windows-check vet staticcheck fmt-check clean

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
	cd reliability && $(GO) mod download

deps-shot: deps
	$(call apt_install,$(DEB_SHOT))

deps-bench: deps
	$(call apt_install,$(DEB_BENCH))

deps-test: deps
	$(call apt_install,$(DEB_TEST))

build: deps
	$(GO) build -o $(BIN) .
	$(GO) build -o $(PDFBIN) ./cmd/reviewer-pdf

demo: build
	./$(BIN) --demo

vet: deps
	$(GO) vet ./...
	cd reliability && $(GO) vet ./...

# staticcheck, pinned, over the product and the reliability module (its
# own go.mod: the test-only modules, toxiproxy and what it pulls in, are
# not the product's). Both run with the GOFLAGS above.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck: deps
	$(GO) run $(STATICCHECK) ./...
	cd reliability && $(GO) run $(STATICCHECK) ./...

# The limits of issue 28 ("Small doors"), measured: exported methods of
# every type in review and store from go doc (DOORS_MAX_METHODS, 45), the
# window's interfaces and type assertions (DOORS_MAX_INTERFACE, 15).
# DOORS_ENFORCE names the areas whose miss fails (all by default, as
# `make test` runs it).
doors:
	./scripts/doors.sh

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Every test: real SQLite files, the reference service on loopback, real
# sockets, Fyne's headless test driver. The workflow, client, store and
# window suites also run under the race detector. The reliability tests are
# a module of their own (reliability/go.mod), so ./... does not reach them:
# their short form runs from their folder.
test: deps deps-test vet staticcheck fmt-check bench-smoke
	DOORS_ENFORCE=all ./scripts/doors.sh
	$(GO) test -count=1 ./...
	cd reliability && $(GO) test -count=1 ./...
	$(GO) test -count=1 -race ./client/ ./review/ ./store/ ./ui/
	$(MAKE) --no-print-directory fuzz

# Each fuzz target for a few seconds (their seed corpora, under
# testdata/fuzz, also run in every plain `go test`). The budget is a count
# of runs, not a duration: Go 1.26's fuzz coordinator can report a spurious
# "context deadline exceeded" when a duration runs out while a starved
# worker is mid-run (golang/go#75804, fixed in Go 1.27); a count has no
# deadline to race. FUZZTIME=1m (or 1000000x) for a longer hunt.
FUZZTIME ?= 10000x
# The window's fuzz target drives a whole console per input (about 100 a
# second on 2 cores): a budget of its own (TARGET:BUDGET below).
FUZZTIME_WINDOW ?= 500x
FUZZ_TARGETS := \
	./client/:FuzzBatchPageDecoder ./client/:FuzzItemDecoder ./client/:FuzzErrorBody ./client/:FuzzRetryAfter ./client/:FuzzDocumentType ./client/:FuzzReasonCodes ./client/:FuzzDecisionAnswer \
	./policy/:FuzzCheckFile ./internal/safetext/:FuzzCSVCell ./internal/safetext/:FuzzLine ./ui/:FuzzTheWindowDrawsOutsideTextEscaped:$(FUZZTIME_WINDOW) \
	./internal/document/:FuzzOpen ./internal/jpegscale/:FuzzDecodeMatchesStandardLibrary
fuzz: deps
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; rest=$${t#*:}; name=$${rest%%:*}; budget=$(FUZZTIME); \
		case $$rest in *:*) budget=$${rest#*:};; esac; \
		echo "fuzz $$name ($$pkg) for $$budget"; \
		out=$$($(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $$budget $$pkg 2>&1) || { echo "$$out"; exit 1; }; done

# The fault matrix through a real TCP proxy (toxiproxy, in-process) and
# 20 SIGKILLs each during flushes, syncs and actions; prints the matrix (see
# docs/reliability.md). Under 10 minutes on 2 cores; `make test` runs a
# short form of it. reliability/ is a module of its own (its go.mod
# replaces the console's module by ../), so it runs from its folder.
reliability: deps
	@mkdir -p bin && rm -f bin/reliability-matrix.txt bin/reliability-matrix.txt.bulk
	@RELIABILITY=full RELIABILITY_REPORT=$(CURDIR)/bin/reliability-matrix.txt \
		sh -c 'cd reliability && exec $(GO) test -count=1 -parallel 8 -timeout 10m ./...'; status=$$?; \
		cat bin/reliability-matrix.txt bin/reliability-matrix.txt.bulk 2>/dev/null; exit $$status

# The performance suite (docs/performance.md): the real binary against the
# reference service with BENCH_BATCHES batches of 10 items, each figure
# against its floor or peer in the same run; exits non-zero when a median
# misses its target (↓ against the minimal label too, since latency11).
# The latency figures sync their own caches: 1,000 items and
# BENCH_LATENCY_BATCHES x 10.
# Then the store's own benchmarks.
bench: deps-bench bench-build
	@status=0; ./bin/perf -batches $(BENCH_BATCHES) -runs $(BENCH_RUNS) -window-runs $(BENCH_WINDOW_RUNS) -display $(BENCH_DISPLAY) -latency-batches-large $(BENCH_LATENCY_BATCHES) || status=$$?; \
	$(GO) test -run '^$$' -bench . -benchtime 20x ./store/ || status=1; \
	$(MAKE) --no-print-directory bench-documents || status=1; exit $$status

# The documents' part of the suite (docs/documents.md): the viewer's first
# views against their floors and targets (a progressive photo's first
# picture against its own full decode), the speed against the programs a
# reviewer would pick instead (djpeg, pdftoppm: ratios measured side by
# side in one run, a miss printed MISSED; the 24-megapixel photo's against
# djpeg fails the run, the PDFs' do not yet), and the first PDF after
# installing.
bench-documents: deps-bench bench-build
	@status=0; \
	echo "the viewer's first view of a 10 MiB JPEG (5200x3900 to 1240x700), against the standard library's decode and scale:"; \
	$(GO) test -run '^$$' -bench '^Benchmark(FirstView(Floor|Decoded|Progressive|ProgressiveRefined)?|FullResolution|FullDecodeProgressive)$$' -benchtime 5x -count 5 ./internal/document/ | tee bin/firstview.txt && \
	./scripts/firstview-check.sh bin/firstview.txt || status=1; \
	echo "the speed against the peers:"; \
	REVIEWER_BENCH_PEERS=1 $(GO) test -count=1 -run '^TestSpeedAgainstPeers$$' -v ./internal/document/ > bin/peers.txt; s=$$?; \
	grep -v '^=== ' bin/peers.txt; [ $$s = 0 ] || status=1; \
	echo "the first PDF after installing, to its first page: the renderer compiling (cold), and compiled ahead by the window (prepared):"; \
	$(GO) test -run '^$$' -bench 'FirstPDFAfterInstall' -benchtime 1x -count 3 ./internal/document/ || status=1; exit $$status

bench-build: deps
	$(GO) build -o $(BIN) .
	$(GO) build -o $(PDFBIN) ./cmd/reviewer-pdf
	$(GO) build -o bin/floor-sync ./bench/floor/sync
	$(GO) build -o bin/floor-window ./bench/floor/window
	$(GO) build -o bin/floor-keylabel ./bench/floor/keylabel
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
# search, a file request, a snooze, a saved view, a note, a bulk plan by
# Enter, a view with its batch, an item another reviewer holds, back online
# after an outage and a quit, with keys alone, in the real window under
# Xvfb against demo-api, then checked through the command line (about two
# minutes); a screenshot per step in WALK_SHOTS (default: a new temporary
# folder). Then the decisions' walk (scripts/decide-walk.sh, contract 1.2):
# ana clears, rejects and escalates a batch's items, ben's window confirms
# the reject, checked through the command line (about a minute more).
WALK_SHOTS ?=
walk: deps build
	$(call apt_install,$(DEB_WALK))
	./scripts/keyboard-walk.sh $(BIN) $(WALK_SHOTS)
	./scripts/decide-walk.sh $(BIN) $(if $(WALK_SHOTS),$(WALK_SHOTS)/decide)

# A desktop bundle, reviewer.tar.xz (usr/local/bin/reviewer and
# reviewer-pdf, added by scripts/bundle-renderer.sh, the console's .desktop
# entry and icon, named by the app id, and a Makefile that installs them for
# one user or for all), by Fyne's packager from FyneApp.toml, around the
# binary of `make build` (the packager's own build would compile Fyne again
# from cold: 12 minutes on 2 cores). PACKAGE_BUNDLE=reviewer.tar.xz
# go test -run Bundle . checks what it holds.
#
# Then the .deb and .rpm (packaging/linux/nfpm.yaml) in bin/: both binaries
# in /usr/bin, the desktop entry, the hicolor icon and the AppStream
# metainfo named by the app id, and the libraries a desktop needs declared.
# nfpm is a tool pinned here, built from the Go proxy into GOPATH/bin: it
# is not a module of the console's go.mod. TestLinuxPackages checks what
# they hold (and validates the entry and the metainfo).
FYNE_TOOLS := fyne.io/tools/cmd/fyne@v1.7.4
NFPM       := github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.48.0
DEB_PACKAGE := desktop-file-utils appstream xz-utils
APP_VERSION = $(shell sed -n 's/^Version *= *"\(.*\)"/\1/p' FyneApp.toml)
APP_BUILD   = $(shell sed -n 's/^Build *= *\([0-9]*\)/\1/p' FyneApp.toml)
DEB := bin/trustscreen-reviewer_$(APP_VERSION)-$(APP_BUILD)_amd64.deb
RPM := bin/trustscreen-reviewer-$(APP_VERSION)-$(APP_BUILD).x86_64.rpm
package: build
	$(call apt_install,$(DEB_PACKAGE))
	GOFLAGS= $(GO) install $(FYNE_TOOLS)
	rm -f reviewer.tar.xz "TrustScreen Reviewer.tar.xz"
	@# The packager counts Build up in FyneApp.toml on every run: the build
	@# number is the project's to set (with Version), so it is put back.
	cp FyneApp.toml bin/FyneApp.toml.kept
	$$($(GO) env GOPATH)/bin/fyne package --os linux --executable $(BIN); status=$$?; \
		cp bin/FyneApp.toml.kept FyneApp.toml; rm -f bin/FyneApp.toml.kept; exit $$status
	mv "TrustScreen Reviewer.tar.xz" reviewer.tar.xz
	./scripts/bundle-renderer.sh reviewer.tar.xz $(PDFBIN)
	GOFLAGS= CGO_ENABLED=0 $(GO) install $(NFPM)
	rm -f $(DEB) $(RPM)
	VERSION=$(APP_VERSION) RELEASE=$(APP_BUILD) $$($(GO) env GOPATH)/bin/nfpm pkg --packager deb --config packaging/linux/nfpm.yaml --target $(DEB)
	VERSION=$(APP_VERSION) RELEASE=$(APP_BUILD) $$($(GO) env GOPATH)/bin/nfpm pkg --packager rpm --config packaging/linux/nfpm.yaml --target $(RPM)
	PACKAGE_BUNDLE=$(CURDIR)/reviewer.tar.xz PACKAGE_DEB=$(CURDIR)/$(DEB) PACKAGE_RPM=$(CURDIR)/$(RPM) \
		$(GO) test -count=1 -run 'Bundle|LinuxDesktopFiles|LinuxPackages' .

# Windows, cross-built here with cgo and MinGW-w64 (scripts/windows-build.sh):
# bin/windows/reviewer.exe (icon and version inside), reviewer-pdf.exe and
# a zip that installs for one user without admin rights (install.cmd). A
# cold build compiles Fyne's driver and SQLite for Windows: several minutes.
DEB_WINDOWS := gcc-mingw-w64-x86-64 imagemagick zip
windows: deps
	$(call apt_install,$(DEB_WINDOWS))
	GO=$(GO) ./scripts/windows-build.sh

# The Windows build under Wine, as a reviewer uses it (scripts/windows-check.sh):
# --version; against the reference service on loopback (this machine's Linux
# build serving it) a sync, items --json, a re-submission paid once, a flush,
# an export; the window under Xvfb, with a screenshot. Wine's prefix is
# bin/wine-prefix, with a test-only bcryptprimitives.dll that Wine 8 lacks;
# nothing is written into the system's Wine. Exits non-zero on a miss. Not
# part of `make test`: it takes minutes.
DEB_WINE := wine64 xvfb xdotool x11-utils imagemagick jq curl unzip fonts-wqy-microhei
windows-check: windows build
	$(call apt_install,$(DEB_WINE))
	./scripts/windows-check.sh $(BIN) bin/windows $(WINDOWS_SHOTS)

clean:
	rm -rf bin reviewer.tar.xz
