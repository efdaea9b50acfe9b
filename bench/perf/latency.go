package main

// The latency a reviewer feels (issue 30): ↓ in the item list to the item
// panel showing the next item, from the key event to the frame that shows
// it, under Xvfb, on a small cache and on a large one (1,000 and 1,000,000
// items in make bench), beside the same step in a minimal Fyne program
// whose label changes on ↓ (bench/floor/keylabel).
//
// How a key's latency is measured: the runner holds one X connection
// (xclient.go). It reads the pixels of the region that shows the result
// (the panel's title and id lines; the floor's label) until they have not
// changed for a second, waits the key's phase (keyPhase: the presses
// spread evenly over Fyne's 60 Hz tick, as a reviewer's keys fall), sends
// ↓ with XTEST and takes the time right before the request is written,
// then reads the region every 2 ms until it has changed and then stayed
// the same for 300 ms. The latency is the time of
// the first read that showed that final picture: a frame half drawn, or an
// intermediate one, does not count. The X server handles the key and the
// reads of one connection in order, so no read can come before the key.
// The reads cost the X server a little CPU on the same two cores, the
// same on both sides.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/trustscreen/reviewer/store"
)

// latencyKeys is the count of ↓ presses measured in each launch, in passes
// of keysAPass: the window opens on the newest batch, of 10 items, so after
// a pass Home takes it back to the first (not measured, on both sides; the
// floor's label ignores it). A median of 8 keys moved with where they fell
// in Fyne's tick: the minimal label's read 8.5 to 16.5 ms from one launch
// to the next on a quiet machine (latency11); 24 keep it steadier.
const (
	latencyKeys = 24
	keysAPass   = 8
)

// traceKeys prints each measured key's phase and latency (-trace-keys).
var traceKeys bool

// fyneTick is the period of Fyne's event loop (internal/driver/glfw,
// runGL): it reads the window's events once a tick and draws right after,
// so a key waits for the next tick, 0 to 16.7 ms. A key sent a fixed time
// after the previous result was seen comes at the same point of the tick
// each time (300 ms of stillness are 18 ticks): the figure would then be a
// step of the frame's work, not what a reviewer's key, which comes at any
// point of the tick, waits. So each key is sent after a delay that spreads
// the presses evenly over one tick (keyPhase).
const fyneTick = time.Second / 60

// anyPhase is the delay before a key measured once in a launch (a search
// keystroke, Enter, Space): a point of the tick drawn at random, so that
// the runs' median is of keys that come at any point of it.
func anyPhase() time.Duration { return rand.N(fyneTick) }

// keyPhase is the delay before the i-th of n presses: the presses of a
// launch fall at n points spread evenly over one tick, whatever the point
// the previous result left them at.
func keyPhase(i, n int) time.Duration {
	return time.Duration((float64(i) + 0.5) / float64(n) * float64(fyneTick))
}

// a launched window under measurement.
type keyWindow struct {
	cmd    *exec.Cmd
	win    uint32
	stderr *stderrLog
}

// ensureDisplay starts Xvfb on the display when none answers there, and
// returns what stops it (a no-op when the display was there).
func ensureDisplay(display string) (func(), error) {
	if exec.Command("xdpyinfo", "-display", display).Run() == nil {
		return func() {}, nil
	}
	xvfb := exec.Command("Xvfb", display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp")
	if err := xvfb.Start(); err != nil {
		return nil, fmt.Errorf("no X display %s and no Xvfb: %v", display, err)
	}
	for range 100 {
		if exec.Command("xdpyinfo", "-display", display).Run() == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return func() { xvfb.Process.Kill(); xvfb.Wait() }, nil
}

// launchKeyWindow starts a window program and waits for its window,
// focused, with the region settled.
func (s *suite) launchKeyWindow(x *xconn, env []string, r rect, name string, args ...string) (*keyWindow, error) {
	return s.launchKeyWindowOn(x, env, r, "", name, args...)
}

// launchKeyWindowOn is launchKeyWindow with the view the window opens on
// (lastView, JSON of review.ViewFilter, as ui/windowstate.go keeps it; ""
// a first start's).
func (s *suite) launchKeyWindowOn(x *xconn, env []string, r rect, lastView, name string, args ...string) (*keyWindow, error) {
	// A fresh preferences folder each launch: the window keeps its size,
	// the panel's width and the batch she had open in Fyne's preferences
	// (ui/windowstate.go), which would carry one launch's end into the
	// next and move the regions read; every launch starts as a first one.
	prefs, err := os.MkdirTemp(s.c.work, "prefs-")
	if err != nil {
		return nil, err
	}
	if lastView != "" {
		dir := filepath.Join(prefs, "fyne", "com.trustscreen.reviewer") // FyneApp.toml's ID
		b, err := json.Marshal(map[string]string{"last_view": lastView})
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "preferences.json"), b, 0o600); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(append(os.Environ(), env...), "XDG_CONFIG_HOME="+prefs)
	errb := &stderrLog{}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	kw := &keyWindow{cmd: cmd, stderr: errb}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	search := exec.CommandContext(ctx, "xdotool", "search", "--sync", "--onlyvisible", "--pid", strconv.Itoa(cmd.Process.Pid))
	search.Env = append(os.Environ(), "DISPLAY="+s.c.display)
	out, err := search.Output()
	if err != nil {
		kw.stop()
		return nil, fmt.Errorf("%s: no window in 60 s (xdotool, Debian package xdotool): %v: %s", filepath.Base(name), err, errb.String())
	}
	id, err := strconv.ParseUint(strings.Fields(string(out))[0], 10, 32)
	if err != nil {
		kw.stop()
		return nil, err
	}
	kw.win = uint32(id)
	if err := x.focus(kw.win); err != nil {
		kw.stop()
		return nil, err
	}
	// The window starts, reads its cache and draws: the region must have
	// held still for a second (and the whole window for as long) before a
	// key is sent.
	if _, err := settle(x, kw.win, r, time.Second, 60*time.Second); err != nil {
		kw.stop()
		return nil, fmt.Errorf("%s: %v", filepath.Base(name), err)
	}
	return kw, nil
}

func (kw *keyWindow) stop() { kw.cmd.Process.Kill(); kw.cmd.Wait() }

// settle reads the region until it has not changed for quiet, at most
// limit; it returns the time of the first read that showed the final
// picture, counted from the call.
func settle(x *xconn, win uint32, r rect, quiet, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	var last []byte
	var since time.Time
	for {
		img, err := x.image(win, r)
		if err != nil {
			return 0, err
		}
		now := time.Now()
		if last == nil || !sameImage(img, last) {
			last = append(last[:0], img...)
			since = now
		}
		if now.Sub(since) >= quiet {
			return since.Sub(start), nil
		}
		if now.Sub(start) > limit {
			return 0, fmt.Errorf("the region did not hold still for %v in %v", quiet, limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// keyLatency sends ↓ and returns the time to the frame that shows its
// result in the region (see the file's comment). A key whose region never
// changes is an error: the step did not happen.
func keyLatency(x *xconn, win uint32, r rect, phase time.Duration) (time.Duration, error) {
	return stepLatency(x, win, r, phase, ksDown)
}

// stepLatency is keyLatency for any key (with modifiers held), sent phase
// after the region was read.
func stepLatency(x *xconn, win uint32, r rect, phase time.Duration, sym uint32, mods ...uint32) (time.Duration, error) {
	before, err := x.image(win, r)
	if err != nil {
		return 0, err
	}
	before = append([]byte(nil), before...)
	time.Sleep(phase)
	start := time.Now()
	if err := x.tap(sym, mods...); err != nil {
		return 0, err
	}
	cur := before
	var curAt time.Time
	changed := false
	for {
		img, err := x.image(win, r)
		if err != nil {
			return 0, err
		}
		now := time.Now()
		if !sameImage(img, cur) {
			cur = append([]byte(nil), img...)
			curAt = now
			changed = true
		}
		if changed && now.Sub(curAt) >= 300*time.Millisecond {
			if traceKeys {
				fmt.Printf("    key %#x: phase %.1f ms, latency %.1f ms\n", sym, ms(phase), ms(curAt.Sub(start)))
			}
			return curAt.Sub(start), nil
		}
		if !changed && now.Sub(start) > 30*time.Second {
			return 0, fmt.Errorf("key %#x changed nothing in the region in 30 s", sym)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// cpuOf is a process's CPU time so far (user + system, /proc/PID/stat).
func cpuOf(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100, nil // USER_HZ
}

// keys measures latencyKeys presses of ↓ in a launched window: the median
// latency and the CPU per key.
func (s *suite) keys(x *xconn, env []string, r rect, name string, args ...string) (lat, cpu time.Duration, err error) {
	kw, err := s.launchKeyWindow(x, env, r, name, args...)
	if err != nil {
		return 0, 0, err
	}
	defer kw.stop()
	var ls []float64
	var c0 time.Duration // the CPU at the start of the pass
	for i := range latencyKeys {
		if i%keysAPass == 0 {
			if i > 0 {
				// The pass's CPU, then back to the first item, still:
				// the CPU of this move is not the keys'.
				c1, err := cpuOf(kw.cmd.Process.Pid)
				if err != nil {
					return 0, 0, err
				}
				cpu += c1 - c0
				if err := x.tap(ksHome); err != nil {
					return 0, 0, err
				}
				if _, err := settle(x, kw.win, r, 300*time.Millisecond, 30*time.Second); err != nil {
					return 0, 0, fmt.Errorf("%s: Home: %v", filepath.Base(name), err)
				}
			}
			if c0, err = cpuOf(kw.cmd.Process.Pid); err != nil {
				return 0, 0, err
			}
		}
		d, err := keyLatency(x, kw.win, r, keyPhase(i, latencyKeys))
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %v", filepath.Base(name), err)
		}
		ls = append(ls, d.Seconds())
	}
	c1, err := cpuOf(kw.cmd.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	cpu += c1 - c0
	return time.Duration(median(ls) * float64(time.Second)), cpu / latencyKeys, nil
}

// latency measures ↓ to the panel at each scale beside the floor, and the
// large scale against the small one, pair by pair.
func (s *suite) latency(token string) error {
	c := s.c
	stop, err := ensureDisplay(c.display)
	if err != nil {
		return err
	}
	defer stop()
	x, err := dialX(c.display)
	if err != nil {
		return fmt.Errorf("the X connection to %s: %v", c.display, err)
	}
	defer x.Close()
	// The third cache is the memory figure's: enough rows to scroll past
	// (about 39,000 at 10,000 batches) for a growth of a few MB to be
	// within the target, and few enough that End reads them in half a
	// minute.
	scales := []int{c.latencySmall, c.latencyLarge, c.scrollBatches}
	caches := make([]string, len(scales))
	envs := make([][]string, len(scales))
	var stops []func()
	defer func() {
		for _, f := range stops {
			f()
		}
	}()
	for i, b := range scales {
		cc := c
		cc.batches = b
		srv, url, err := startService(cc, token)
		if err != nil {
			return err
		}
		stops = append(stops, func() { srv.Process.Signal(os.Interrupt); srv.Wait() })
		caches[i] = filepath.Join(c.work, fmt.Sprintf("latency-%d.db", b))
		envs[i] = []string{"REVIEWER_API_URL=" + url, "REVIEWER_API_TOKEN=" + token, "REVIEWER_NAME=perf",
			"LANG=en_US.UTF-8", "DISPLAY=" + c.display, "REVIEWER_DB=" + caches[i]}
		t := time.Now()
		if _, err := proc(envs[i], nil, c.bin, "sync"); err != nil {
			return err
		}
		fmt.Printf("  latency: %d items synced in %.1fs\n", b*c.perBatch, time.Since(t).Seconds())
	}
	label := func(b int) string {
		n := b * c.perBatch
		switch {
		case n >= 1000000 && n%1000000 == 0:
			return fmt.Sprintf("%dM", n/1000000)
		case n >= 1000 && n%1000 == 0:
			return fmt.Sprintf("%dk", n/1000)
		}
		return strconv.Itoa(n)
	}
	small, large := label(scales[0]), label(scales[1])
	// ↓ against the minimal label: judged since latency11, when 24 keys a
	// launch steadied the label's median: two make bench runs read 1.87x /
	// 1.81x and 1.81x / 1.85x (1k / 1M).
	var toFloor []*figure
	for _, l := range []string{small, large} {
		toFloor = append(toFloor, &figure{name: fmt.Sprintf("↓ to the item panel, %s items, key to frame (against the minimal label)", l),
			unit: "s", target: 2, targetText: "≤ 2x"})
	}
	abs := &figure{name: fmt.Sprintf("↓ to the item panel, %s items, key to frame", large), unit: "s", target: 0.05,
		targetText: "≤ 50 ms (quiet machine)", ratioIsAbsent: true}
	scale := &figure{name: fmt.Sprintf("↓ to the item panel, %s against %s items", large, small), unit: "s", target: 1.2, targetText: "≤ 1.2x"}
	cpu := &figure{name: fmt.Sprintf("↓ to the item panel, %s items, CPU per key (against the minimal label)", large), unit: "s",
		target: 1e9, targetText: "(shown)"}
	// The same label above as many static objects as the reviewer's screen
	// draws: Fyne draws a whole window for each frame, so what ↓ costs
	// follows what is on the screen, not only what changed (latency7).
	crowded := &figure{name: fmt.Sprintf("↓ to the item panel, %s items, key to frame (against the label above %d static objects)", large, c.floorObjects),
		unit: "s", target: 1e9, targetText: "(shown)"}
	terms := make([]string, len(scales))
	for j := range scales {
		if terms[j], err = searchTerm(caches[j]); err != nil {
			return err
		}
	}
	var match, none, open, one, all [2]*figure
	for j, l := range []string{small, large} {
		match[j] = &figure{name: fmt.Sprintf("a search keystroke to its batch list (one match), %s items", l), unit: "s",
			target: 0.1, targetText: "≤ 100 ms", ratioIsAbsent: true}
		none[j] = &figure{name: fmt.Sprintf("a search keystroke to its batch list (no match), %s items", l), unit: "s",
			target: 0.1, targetText: "≤ 100 ms", ratioIsAbsent: true}
		open[j] = &figure{name: fmt.Sprintf("Enter in the search: its batch opened, to the first rows, %s items", l), unit: "s",
			target: 0.2, targetText: "≤ 200 ms", ratioIsAbsent: true}
		// Opening a batch and All batches, enforced since latency7: their
		// medians were 60 to 141 ms in every run since latency3.
		one[j] = &figure{name: fmt.Sprintf("All batches unchecked: the newest batch, to the first rows, %s items", l), unit: "s",
			target: 0.2, targetText: "≤ 200 ms", ratioIsAbsent: true}
		all[j] = &figure{name: fmt.Sprintf("All batches checked, to the first rows, %s items", l), unit: "s",
			target: 0.2, targetText: "≤ 200 ms", ratioIsAbsent: true}
	}
	var sideBySide []*figure
	for _, f := range []struct {
		name string
		of   [2]*figure
	}{{"search, one match", match}, {"search, no match", none}, {"opening a batch", open}, {"unchecking All batches", one}, {"All batches", all}} {
		sideBySide = append(sideBySide, &figure{name: fmt.Sprintf("%s: %s against %s items", f.name, large, small), unit: "s",
			target: 1e9, targetText: "(shown)"})
	}
	// The memory per row, judged on the Go heap live after a collection
	// (where a window that kept the rows it read would keep them) since
	// latency8; the resident set's growth is shown beside it: it also
	// counts what the allocators keep, 10 to 28 MB from one launch to
	// the next (latency5), which the rows divide.
	perRow := &figure{name: fmt.Sprintf("the window's Go heap in the rows scrolled past (End, %s items)", label(scales[2])), unit: "KB a row",
		target: 0.5, targetText: "≤ 0.5 KB a row (flat)", ratioIsAbsent: true}
	perRowRSS := &figure{name: fmt.Sprintf("the window's resident set in the rows scrolled past (End, %s items)", label(scales[2])), unit: "KB a row",
		target: 1e9, targetText: "(shown)", ratioIsAbsent: true}
	floorEnv := []string{"DISPLAY=" + c.display}
	for i := range c.warmup + c.runs {
		var ours [2]time.Duration // small, large
		var oursCPU [2]time.Duration
		var floor, floorCPU, crowd, crowdCPU time.Duration
		err := pair(i, func() error {
			for j := range 2 {
				var err error
				if ours[j], oursCPU[j], err = s.keys(x, envs[j], c.panelRegion, c.bin); err != nil {
					return err
				}
			}
			return nil
		}, func() (err error) {
			if floor, floorCPU, err = s.keys(x, floorEnv, c.labelRegion, c.floorKeys); err != nil || c.floorObjects == 0 {
				return err
			}
			crowd, crowdCPU, err = s.keys(x, floorEnv, c.labelRegion, c.floorKeys, "-objects", strconv.Itoa(c.floorObjects))
			return err
		})
		if err != nil {
			return err
		}
		fmt.Printf("  latency run %d: ↓ %s %.0f ms (CPU %.0f ms), %s %.0f ms (CPU %.0f ms), minimal label %.1f ms (CPU %.0f ms)",
			i-c.warmup+1, small, ms(ours[0]), ms(oursCPU[0]), large, ms(ours[1]), ms(oursCPU[1]), ms(floor), ms(floorCPU))
		if c.floorObjects > 0 {
			fmt.Printf(", above %d objects %.1f ms (CPU %.0f ms)", c.floorObjects, ms(crowd), ms(crowdCPU))
		}
		fmt.Println()
		if i >= c.warmup {
			for j := range 2 {
				toFloor[j].add(ours[j].Seconds(), floor.Seconds(), ours[j].Seconds()/floor.Seconds())
			}
			abs.add(ours[1].Seconds(), 0, ours[1].Seconds())
			scale.add(ours[1].Seconds(), ours[0].Seconds(), ours[1].Seconds()/ours[0].Seconds())
			cpu.add(oursCPU[1].Seconds(), floorCPU.Seconds(), oursCPU[1].Seconds()/max(floorCPU.Seconds(), 0.01))
			if c.floorObjects > 0 {
				crowded.add(ours[1].Seconds(), crowd.Seconds(), ours[1].Seconds()/crowd.Seconds())
			}
		}
		if c.keysOnly {
			continue
		}
		var st [2]searchTimes
		for j := range 2 {
			if st[j], err = s.search(x, envs[j], terms[j]); err != nil {
				return err
			}
		}
		fmt.Printf("  latency run %d: search %s: %.0f / %.0f ms (one match / none), open %.0f ms; %s: %.0f / %.0f ms, open %.0f ms\n",
			i-c.warmup+1, small, ms(st[0].match), ms(st[0].none), ms(st[0].open), large, ms(st[1].match), ms(st[1].none), ms(st[1].open))
		mem, err := s.scrolled(x, envs[2], caches[2])
		if err != nil {
			return err
		}
		fmt.Printf("  latency run %d: %d rows scrolled past, %.2f KB a row kept in the Go heap (%.0f to %.0f MB live), %.2f in the resident set (%.1f to %.1f MB)\n",
			i-c.warmup+1, mem.rows, mem.liveKB, mem.liveMB[0], mem.liveMB[1], mem.rssKB, mem.rssMB[0], mem.rssMB[1])
		if i < c.warmup {
			continue
		}
		perRow.add(mem.liveKB, 0, mem.liveKB)
		perRowRSS.add(mem.rssKB, 0, mem.rssKB)
		for j := range 2 {
			match[j].add(st[j].match.Seconds(), 0, st[j].match.Seconds())
			none[j].add(st[j].none.Seconds(), 0, st[j].none.Seconds())
			open[j].add(st[j].open.Seconds(), 0, st[j].open.Seconds())
		}
		fmt.Printf("  latency run %d: All batches off / on, %s: %.0f / %.0f ms; %s: %.0f / %.0f ms\n", i-c.warmup+1,
			small, ms(st[0].one), ms(st[0].all), large, ms(st[1].one), ms(st[1].all))
		for j := range 2 {
			one[j].add(st[j].one.Seconds(), 0, st[j].one.Seconds())
			all[j].add(st[j].all.Seconds(), 0, st[j].all.Seconds())
		}
		for k, d := range [][2]time.Duration{{st[0].match, st[1].match}, {st[0].none, st[1].none}, {st[0].open, st[1].open},
			{st[0].one, st[1].one}, {st[0].all, st[1].all}} {
			sideBySide[k].add(d[1].Seconds(), d[0].Seconds(), d[1].Seconds()/d[0].Seconds())
		}
	}
	s.figures = append(s.figures, toFloor[0], toFloor[1], abs, scale, cpu)
	if c.floorObjects > 0 {
		s.figures = append(s.figures, crowded)
	}
	if c.keysOnly {
		return nil
	}
	s.figures = append(s.figures, match[0], match[1], sideBySide[0], none[0], none[1], sideBySide[1], open[0], open[1], sideBySide[2],
		one[0], one[1], sideBySide[3], all[0], all[1], sideBySide[4], perRow, perRowRSS)
	return nil
}

// searchTimes are one launch's search figures.
type searchTimes struct{ match, none, open, one, all time.Duration }

// search measures, in a launched reviewer: a keystroke in the search that
// narrows it to one customer's batch (the last character of its number,
// the ones before typed and drawn first) to the batch list redrawn; a
// keystroke that makes it match nothing ("z": no id, customer or file
// name holds one) to the list emptied; then, the "z" taken back, Enter
// (open the first match) to the first rows of its items.
func (s *suite) search(x *xconn, env []string, term string) (searchTimes, error) {
	c := s.c
	var t searchTimes
	kw, err := s.launchKeyWindow(x, env, c.panelRegion, c.bin)
	if err != nil {
		return t, err
	}
	defer func() { kw.stop() }() // the window of the moment (a second launch below)
	typed := func(text string) error {
		for _, r := range text {
			if err := x.typeSym(uint32(r)); err != nil {
				return err
			}
		}
		_, err := settle(x, kw.win, c.batchRegion, 2*time.Second, 60*time.Second)
		return err
	}
	if err := x.tap('f', ksControl); err != nil {
		return t, err
	}
	if err := typed(term[:len(term)-1]); err != nil {
		return t, err
	}
	if t.match, err = stepLatency(x, kw.win, c.batchRegion, anyPhase(), uint32(term[len(term)-1])); err != nil {
		return t, fmt.Errorf("search %q: %v", term, err)
	}
	if t.none, err = stepLatency(x, kw.win, c.batchRegion, anyPhase(), 'z'); err != nil {
		return t, fmt.Errorf("search %q: %v", term+"z", err)
	}
	if err := x.tap(ksBackSpace); err != nil {
		return t, err
	}
	if _, err := settle(x, kw.win, c.batchRegion, 2*time.Second, 60*time.Second); err != nil {
		return t, err
	}
	if t.open, err = stepLatency(x, kw.win, c.itemsRegion, anyPhase(), ksReturn); err != nil {
		return t, fmt.Errorf("opening the match of %q: %v", term, err)
	}
	kw.stop()
	// "All batches": a new launch (its first view is all batches); Ctrl+F
	// and Tab reach the check box, Space unchecks it (the newest batch
	// opens), and again (the focus went back to the items) checks it.
	if kw, err = s.launchKeyWindow(x, env, c.panelRegion, c.bin); err != nil {
		return t, err
	}
	for _, f := range []*time.Duration{&t.one, &t.all} {
		if err := x.tap('f', ksControl); err != nil {
			return t, err
		}
		if err := x.tap(0xff09); err != nil { // Tab
			return t, err
		}
		if _, err := settle(x, kw.win, c.itemsRegion, time.Second, 60*time.Second); err != nil {
			return t, err
		}
		if *f, err = stepLatency(x, kw.win, c.itemsRegion, anyPhase(), ' '); err != nil {
			return t, fmt.Errorf("the All batches check box: %v", err)
		}
	}
	return t, nil
}

// searchTerm is the number of the customer of the batch in the middle of
// the cache (CUST-7050 at 100 batches: "7050").
func searchTerm(cache string) (string, error) {
	out, err := exec.Command("sqlite3", cache,
		"SELECT customer_ref FROM batches ORDER BY id LIMIT 1 OFFSET (SELECT COUNT(*) / 2 FROM batches)").Output()
	if err != nil {
		return "", fmt.Errorf("sqlite3 (install the Debian package sqlite3): %v", err)
	}
	ref := strings.TrimSpace(string(out))
	i := strings.LastIndexByte(ref, '-')
	if term := ref[i+1:]; len(term) >= 2 && strings.Trim(term, "0123456789") == "" {
		return term, nil
	}
	return "", fmt.Errorf("customer %q: no number to search", ref)
}

// keptRSS is the least resident set of a window left alone for hold,
// read every 250 ms: what it keeps, not the garbage of its last presses.
// A window that has just drawn holds garbage up to its Go heap's goal
// until a collection, and the runtime returns the freed pages to the
// system over the seconds after: read at a fixed moment, the figure
// swung by the heap's goal (about 37 MB against 13 MB live at 100,000
// items), more than the rows it measures (docs/performance.md). The
// window's tickers collect every 5 to 20 s when idle.
func keptRSS(pid int, hold time.Duration) (float64, error) {
	least := math.Inf(1)
	for start := time.Now(); ; time.Sleep(250 * time.Millisecond) {
		mb, err := vmRSS(pid)
		if err != nil {
			return 0, err
		}
		least = min(least, mb)
		if time.Since(start) >= hold {
			return least, nil
		}
	}
}

// vmRSS is a process's resident set, in MB.
func vmRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024, err
		}
	}
	return 0, errors.New("no VmRSS")
}

// scrolled measures the window's memory in the rows she has scrolled
// past: ↓ once (the window's first item shows no document until she
// moves: the document of the item she is on is in both figures), then
// End again and again (each goes to the last row the window has read,
// which reads the next page) until End changes nothing, at the last row
// of "All batches", needs my action (the view it is opened on); the
// resident set and the Go heap left live (kept) after the first
// fillPresses and at the end; the growth of each over the rows between,
// in KB a row.
func (s *suite) scrolled(x *xconn, env []string, cache string) (scrollMemory, error) {
	c := s.c
	q, err := inline(store.ItemsQuery(store.ItemFilter{NeedsAction: true}, time.Now()))
	if err != nil {
		return scrollMemory{}, err
	}
	out, err := exec.Command("sqlite3", cache, "SELECT COUNT(*) FROM ("+q+")").Output()
	if err != nil {
		return scrollMemory{}, fmt.Errorf("sqlite3 (install the Debian package sqlite3): %v", err)
	}
	rows, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	if rows < 3 {
		return scrollMemory{}, fmt.Errorf("scrolled: %d rows need action", rows)
	}
	// All batches, needs my action: the listing the window pages. Fyne
	// keeps the texture of every text it drew for a minute after its last
	// draw (fyne.io/fyne/v2/internal/cache, ValidDuration), then frees it;
	// End draws a screenful of new rows a press, so read as shipped both
	// figures would hold the last minute's text, a time's worth, not the
	// rows'. Its own setting, FYNE_CACHE, shortens that minute for this
	// launch (-texture-expiry): what stays beyond it is what the window
	// keeps (docs/performance.md).
	if c.textureExpiry > 0 {
		env = append(env[:len(env):len(env)], "FYNE_CACHE="+c.textureExpiry.String())
	}
	// The runtime's trace of each collection: the Go heap left live
	// (stderrLog), the figure judged.
	env = append(env[:len(env):len(env)], "GODEBUG=gctrace=1")
	kw, err := s.launchKeyWindowOn(x, env, c.panelRegion, `{"needs_action":true}`, c.bin)
	if err != nil {
		return scrollMemory{}, err
	}
	defer kw.stop()
	if _, err := stepLatency(x, kw.win, c.panelRegion, 0, ksDown); err != nil {
		return scrollMemory{}, fmt.Errorf("the ↓ key: %v", err)
	}
	if _, err := settle(x, kw.win, c.panelRegion, 2*time.Second, 120*time.Second); err != nil {
		return scrollMemory{}, err
	}
	// End is pressed until it moves the panel no more (at most twice as
	// many presses as pages of 100 rows would need). The resident set is
	// taken first after fillPresses (5,000 rows), once the window holds
	// what it holds at most (keepPages pages of pageRows, ui/items.go:
	// 1,500 rows) and its heap has grown to what paging needs (it rises
	// for about 5,000 rows, then holds within a few MB): the figure is
	// the growth beyond, which a window that keeps every row it reads
	// grows by a row's worth per row.
	var before, beforeLive float64
	for n := 0; ; n++ {
		if n > rows/50+10 {
			return scrollMemory{}, fmt.Errorf("the End key: still moving after %d presses over %d rows", n, rows)
		}
		if n == fillPresses {
			if _, err := settle(x, kw.win, c.panelRegion, 2*time.Second, 120*time.Second); err != nil {
				return scrollMemory{}, err
			}
			time.Sleep(c.textureExpiry) // the textures of rows no longer drawn are freed, as at the end
			if before, beforeLive, err = kw.kept(c.memoryHold); err != nil {
				return scrollMemory{}, err
			}
		}
		moved, err := stepMoves(x, kw.win, c.panelRegion, ksEnd, 3*time.Second)
		if err != nil {
			return scrollMemory{}, fmt.Errorf("the End key: %v", err)
		}
		if !moved {
			if n <= fillPresses {
				return scrollMemory{}, fmt.Errorf("the End key: the end after %d presses; the figure needs more than %d rows", n, fillPresses*windowPage)
			}
			break
		}
	}
	if _, err := settle(x, kw.win, c.panelRegion, 2*time.Second, 120*time.Second); err != nil {
		return scrollMemory{}, err
	}
	time.Sleep(c.textureExpiry)
	after, afterLive, err := kw.kept(c.memoryHold)
	if err != nil {
		return scrollMemory{}, err
	}
	past := rows - fillPresses*windowPage
	return scrollMemory{
		rssKB:  (after - before) * 1024 / float64(past),
		liveKB: (afterLive - beforeLive) * 1024 / float64(past),
		rows:   past,
		liveMB: [2]float64{beforeLive, afterLive},
		rssMB:  [2]float64{before, after},
	}, nil
}

// scrollMemory is the memory figure of one launch: the growth per row
// scrolled past of the resident set and of the Go heap left live, in KB,
// over rows.
type scrollMemory struct {
	rssKB, liveKB float64
	rows          int
	// the readings, in MB: after the first rows, and at the end
	liveMB, rssMB [2]float64
}

// kept is what a window left alone keeps: its least resident set over hold
// (keptRSS), and the least Go heap live after the collections of that
// time, waiting after it for the first collection if there was none (the
// runtime collects at least every two minutes), in MB.
func (kw *keyWindow) kept(hold time.Duration) (rss, live float64, err error) {
	from := time.Now()
	if rss, err = keptRSS(kw.cmd.Process.Pid, hold); err != nil {
		return 0, 0, err
	}
	live, _, err = kw.stderr.leastLive(from, 150*time.Second)
	return rss, live, err
}

// windowPage is the rows the window reads at a time (ui/items.go,
// pageRows): End on the last row read reads the next page, so after n
// presses the selected row is near the listing's n × windowPage - 1st,
// not on it: the window reads ahead when it draws rows near the end of
// what it holds (ui/items.go, updateCell), and 78,263 rows took 85
// presses in one launch, against 157 at one page a press
// (docs/performance.md, latency5).
// fillPresses is the presses before the window holds its most.
const (
	windowPage  = 500
	fillPresses = 10
)

// stepMoves sends a key and reports whether the region changed within
// wait (and then held still for 300 ms).
func stepMoves(x *xconn, win uint32, r rect, sym uint32, wait time.Duration) (bool, error) {
	before, err := x.image(win, r)
	if err != nil {
		return false, err
	}
	before = append([]byte(nil), before...)
	if err := x.tap(sym); err != nil {
		return false, err
	}
	start := time.Now()
	for time.Since(start) < wait {
		img, err := x.image(win, r)
		if err != nil {
			return false, err
		}
		if !sameImage(img, before) {
			_, err := settle(x, win, r, 300*time.Millisecond, 60*time.Second)
			return true, err
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// parseRect reads "x,y,w,h".
func parseRect(v string) (rect, error) {
	p := strings.Split(v, ",")
	if len(p) != 4 {
		return rect{}, fmt.Errorf("%q: want x,y,w,h", v)
	}
	var n [4]int
	for i, s := range p {
		var err error
		if n[i], err = strconv.Atoi(strings.TrimSpace(s)); err != nil || n[i] < 0 {
			return rect{}, fmt.Errorf("%q: want x,y,w,h", v)
		}
	}
	return rect{n[0], n[1], n[2], n[3]}, nil
}
