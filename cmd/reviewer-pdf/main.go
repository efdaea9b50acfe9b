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
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/trustscreen/reviewer/internal/document/pdfium"
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
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "reviewer-pdf is the PDF renderer of TrustScreen Reviewer; the console runs it when a PDF is looked at. Options:")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 || *memMiB < 64 || *memMiB > 4096 {
		flag.Usage()
		os.Exit(exitUsage)
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
	r, err := pdfium.Start(pdfium.Config{MemoryMiB: *memMiB, CacheDir: *cache})
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

// addressSpaceMiB is the address space the renderer may map: its
// WebAssembly memory (which may be copied once as it grows), plus the Go
// runtime's reservations and the compiled module.
func addressSpaceMiB(memMiB int) int { return 2*memMiB + addressSpaceRoomMiB }

// addressSpaceRoomMiB is what the renderer maps besides its WebAssembly
// memory, with headroom (measured: see docs/documents.md).
const addressSpaceRoomMiB = 2048
