// Command reviewer-pdf is the console's PDF renderer: PDFium in WebAssembly
// (internal/document/pdfium), run by the console as a child process the
// first time a PDF is looked at, answering on stdin and stdout
// (internal/document/pdfproto).
//
// It is a program of its own so that the console's binary does not carry
// it: go-pdfium's bindings and wazero are some 14 MB of code, and on a
// kernel that maps executables with large folios the whole binary is
// resident in every window, whether or not a PDF is ever shown. Apart, the
// renderer costs memory only while PDFs are looked at, and it is bounded
// as a process: its address space (RLIMIT_AS on Linux, set here at its
// start: limit_linux.go), its WebAssembly memory, and its time per page (the
// console kills it on its deadline and starts a fresh one for the next
// PDF). It ends when its stdin ends (watch.go), so that it never outlives
// the console by more than one page's time limit, on any system. A crash here is a
// "damaged or unreadable PDF" line in the console, never a crashed window.
//
// It reads no file but its compiled-code cache folder (-cache) and the
// system's font folders (read-only, for text in a font a PDF does not
// embed), writes
// nothing but its answers, opens no connection, and gets no environment
// from the console.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/trustscreen/reviewer/internal/document/pdfium"
	"github.com/trustscreen/reviewer/internal/document/pdfproto"
)

// exit codes
const (
	exitServed   = 0
	exitStart    = 3 // the renderer could not start
	exitProtocol = 4 // a request was not of the protocol, or a pipe broke
	exitUsage    = 2
	exitOrphan   = 5 // stdin ended and the page in hand took longer than -time-limit
)

func main() {
	memMiB := flag.Int("memory-mib", 512, "the WebAssembly memory limit, in MiB (64 to 4096)")
	cache := flag.String("cache", "", "a folder (0700) for the compiled renderer; empty: none")
	asMiB := flag.Int("address-space-mib", 0, "RLIMIT_AS in MiB (Linux); 0: the memory limit plus room for the runtime and the compiled code")
	limit := flag.Duration("time-limit", 10*time.Second, "once stdin ends (the console closed it, or ended), the most it goes on with the page it is drawing")
	var fonts []pdfproto.FontFolder
	flag.Func("font", "GUEST=HOST: a folder of fonts (HOST) that PDFium sees read-only at GUEST, a path its font loader scans (repeated; none: Linux's font folders at their own paths)", func(v string) error {
		f, ok := pdfproto.ParseFontArg(v)
		if !ok {
			return errors.New("want GUEST=HOST, GUEST a folder PDFium scans for fonts")
		}
		fonts = append(fonts, f)
		return nil
	})
	prepare := flag.Bool("prepare", false, "compile the renderer into the -cache folder, at the lowest priority, when it is not there yet, and exit (the console runs this in the background after its window's start)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "reviewer-pdf is the PDF renderer of TrustScreen Reviewer; the console runs it when a PDF is looked at. Options:")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 || *memMiB < 64 || *memMiB > 4096 {
		flag.Usage()
		os.Exit(exitUsage)
	}
	if *prepare {
		os.Exit(prepareCache(*cache, *memMiB))
	}
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		flag.Usage()
		os.Exit(exitUsage)
	}
	as := *asMiB
	if as == 0 {
		as = addressSpaceMiB(*memMiB)
	}
	if err := limitAddressSpace(uint64(as) << 20); err != nil {
		fmt.Fprintln(os.Stderr, "reviewer-pdf: cannot limit its memory:", err)
		os.Exit(exitStart)
	}
	r, err := pdfium.Start(pdfium.Config{MemoryMiB: *memMiB, CacheDir: *cache, Fonts: fonts})
	if err != nil {
		fmt.Fprintln(os.Stderr, "reviewer-pdf: the renderer could not start:", err)
		fmt.Fprintln(os.Stdout, "error renderer")
		os.Exit(exitStart)
	}
	if err := pdfium.Serve(r, watchStdin(os.Stdin, *limit, os.Exit), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "reviewer-pdf:", err)
		os.Exit(exitProtocol)
	}
	os.Exit(exitServed)
}

// prepareCache compiles PDFium into the cache folder, so that the first
// PDF a reviewer opens after installing loads the compiled code (half a
// second) instead of compiling it (6 s, and 300 MB). It runs at the
// lowest priority the system gives (lowerPriority), never beside a window
// starting: the console runs it only well after its start. A mark in
// the folder, named for the versions of the renderer's code, says it was
// done: the next start does nothing. Exit 0 when the cache is ready.
func prepareCache(dir string, memMiB int) int {
	if dir == "" {
		fmt.Fprintln(os.Stderr, "reviewer-pdf: -prepare needs -cache")
		return exitUsage
	}
	lowerPriority()
	mark := filepath.Join(dir, preparedMark())
	if _, err := os.Stat(mark); err == nil {
		return exitServed
	}
	if err := limitAddressSpace(uint64(addressSpaceMiB(memMiB)) << 20); err != nil {
		fmt.Fprintln(os.Stderr, "reviewer-pdf: cannot limit its memory:", err)
		return exitStart
	}
	r, err := pdfium.Start(pdfium.Config{MemoryMiB: memMiB, CacheDir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "reviewer-pdf: the renderer could not be compiled:", err)
		return exitStart
	}
	r.Close()
	if !pdfium.CacheUsable(dir) {
		// Not a private folder: the renderer would not use it.
		return exitStart
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "reviewer-pdf:", err)
		return exitStart
	}
	return exitServed
}

// preparedMark names the versions of what the compiled code depends on:
// PDFium's module (go-pdfium's), the compiler (wazero's) and the machine.
func preparedMark() string {
	v := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			v[d.Path] = d.Version
		}
	}
	return "prepared-" + v["github.com/klippa-app/go-pdfium"] + "-" + v["github.com/tetratelabs/wazero"] + "-" + runtime.GOOS + "-" + runtime.GOARCH
}

// addressSpaceMiB is the address space the renderer may map: its
// WebAssembly memory (which may be copied once as it grows), plus the Go
// runtime's reservations and the compiled module.
func addressSpaceMiB(memMiB int) int { return 2*memMiB + addressSpaceRoomMiB }

// addressSpaceRoomMiB is what the renderer maps besides its WebAssembly
// memory, with headroom (measured: see docs/documents.md).
const addressSpaceRoomMiB = 2048
