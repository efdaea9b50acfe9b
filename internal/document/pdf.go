package document

import (
	"bufio"
	"context"
	"errors"
	"image"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/trustscreen/reviewer/internal/document/pdfproto"
)

// The PDF renderer is a program of its own, reviewer-pdf (cmd/reviewer-pdf:
// PDFium in WebAssembly), so that the console's binary does not carry its
// 14 MB of code into every window. It is started the first time a PDF is
// looked at, then kept for the process, and talked to on its stdin and
// stdout (pdfproto). Each page is drawn under the PDF time limit: when it
// passes, the child is killed and a fresh one is started for the next
// page. A crash, an early end or an answer outside the protocol is a
// damaged or unreadable PDF, and the child is dropped. It gets no
// environment (the API token stays here), no file but its compiled-code
// cache folder, and answers at most what was asked: a page within the
// pixel limit.

// rendererStartLimit bounds the renderer's start when no caller waits any
// more (compiling PDFium without its cache takes some 30 s on a loaded
// machine).
const rendererStartLimit = 3 * time.Minute

var renderer struct {
	mu       sync.Mutex
	child    *child
	starting chan struct{} // closed when the start in flight ends
	err      error         // why the last start failed
	// busy holds the one exchange in flight: the child answers one
	// request at a time.
	busy chan struct{}
}

func init() { renderer.busy = make(chan struct{}, 1) }

// child is one running renderer.
type child struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	gone chan struct{} // closed when the process has ended
	kill sync.Once
}

func (c *child) stop() {
	c.kill.Do(func() {
		c.in.Close()
		c.cmd.Process.Kill()
	})
}

func (c *child) ended() bool {
	select {
	case <-c.gone:
		return true
	default:
		return false
	}
}

// rendererPath finds reviewer-pdf: beside the console's own executable,
// then at REVIEWER_PDF_RENDERER (Limits.Renderer). "" when it is neither.
func rendererPath(lim Limits) string {
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), RendererName); isProgram(p) {
			return p
		}
	}
	if lim.Renderer != "" && isProgram(lim.Renderer) {
		return lim.Renderer
	}
	return ""
}

var errNoRenderer = failf(KindNoRenderer, "PDF pages cannot be shown: the PDF renderer (%s) is not installed", RendererName)

// fontFolders are this computer's folders of fonts, for the renderer
// (pdfproto.FontFolders); a variable for the tests.
var fontFolders = func() []pdfproto.FontFolder {
	home, _ := os.UserHomeDir()
	return pdfproto.FontFolders(runtime.GOOS, os.Getenv, home)
}

// startChild runs the renderer and waits for its ready line.
func startChild(path string, lim Limits) (*child, error) {
	args := []string{"-memory-mib", strconv.Itoa(lim.PDFMemoryMiB), "-time-limit", lim.PDFTimeout.String()}
	if lim.RendererCache != "" {
		args = append(args, "-cache", lim.RendererCache)
	}
	// The font folders are found here, where the environment is (the
	// renderer has none): on Windows and macOS they are not where
	// PDFium's font loader looks, and are shown to it where it does.
	for _, f := range fontFolders() {
		args = append(args, "-font", pdfproto.FontArg(f))
	}
	cmd := exec.Command(path, args...)
	cmd.Env = []string{} // nothing of the console's environment, its token least of all
	cmd.Dir = "/"
	cmd.SysProcAttr = endsWithConsole() // and, everywhere, when its stdin ends (-time-limit)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 256<<10), gone: make(chan struct{})}
	go func() { cmd.Wait(); close(c.gone) }()
	ready := make(chan error, 1)
	go func() {
		line, err := pdfproto.ReadLine(c.out)
		if err == nil && line != pdfproto.Ready {
			err = errors.New("it did not start")
		}
		ready <- err
	}()
	t := time.NewTimer(rendererStartLimit)
	defer t.Stop()
	select {
	case err = <-ready:
	case <-t.C:
		err = errors.New("it took too long to start")
	}
	if err != nil {
		c.stop()
		if err == io.EOF {
			err = errors.New("it ended at its start")
		}
		return nil, err
	}
	return c, nil
}

// runningChild returns the renderer, starting it once: callers wait for the
// one start in flight (or their ctx), and a failed start is tried again on
// the next PDF.
func runningChild(ctx context.Context, lim Limits) (*child, error) {
	renderer.mu.Lock()
	if c := renderer.child; c != nil && !c.ended() {
		renderer.mu.Unlock()
		return c, nil
	}
	renderer.child = nil
	if renderer.starting == nil {
		path := rendererPath(lim)
		if path == "" {
			renderer.mu.Unlock()
			return nil, errNoRenderer
		}
		ch := make(chan struct{})
		renderer.starting = ch
		go func() {
			c, err := startChild(path, lim)
			renderer.mu.Lock()
			renderer.child, renderer.err, renderer.starting = c, err, nil
			renderer.mu.Unlock()
			close(ch)
		}()
	}
	ch := renderer.starting
	renderer.mu.Unlock()
	select {
	case <-ch:
		renderer.mu.Lock()
		c, err := renderer.child, renderer.err
		renderer.mu.Unlock()
		if c == nil {
			return nil, failf(KindRenderer, "The PDF renderer could not start: %v", err)
		}
		return c, nil
	case <-ctx.Done():
		return nil, ctxError(ctx) // the start goes on, for the next PDF
	}
}

// drop forgets c (killed) so that the next PDF starts a fresh renderer.
func drop(c *child) {
	c.stop()
	renderer.mu.Lock()
	if renderer.child == c {
		renderer.child = nil
	}
	renderer.mu.Unlock()
}

func ctxError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return failf(KindTimeout, "Refused: the PDF took too long to draw.")
	}
	return ctx.Err()
}

var errUnreadable = failf(KindDamaged, "The file is damaged or unreadable: the PDF renderer stopped on it.")

// exchange runs one request on the renderer under ctx and the PDF time
// limit. When the limit or ctx's deadline passes first, the child is
// killed so that a hostile PDF cannot keep the CPU; when ctx is cancelled
// (the reviewer moved on), the page is left to finish, within the limit,
// so that the next PDF does not pay a new start.
func exchange(ctx context.Context, lim Limits, fn func(c *child) error) error {
	if err := ctx.Err(); err != nil {
		return ctxError(ctx)
	}
	select {
	case renderer.busy <- struct{}{}:
	case <-ctx.Done():
		return ctxError(ctx)
	}
	c, err := runningChild(ctx, lim)
	if err != nil {
		<-renderer.busy
		return err
	}
	done := make(chan error, 1)
	go func() { done <- fn(c) }()
	limit := time.NewTimer(lim.PDFTimeout)
	finish := func(err error) error {
		limit.Stop()
		if _, refused := AsError(err); err != nil && !refused {
			// The pipe broke, the child died, or it answered garbage.
			drop(c)
			err = errUnreadable
		}
		<-renderer.busy
		return err
	}
	select {
	case err := <-done:
		return finish(err)
	case <-limit.C:
		drop(c)
		<-done // the pipes are closed: the exchange ends
		<-renderer.busy
		return failf(KindTimeout, "Refused: the PDF took too long to draw.")
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			drop(c)
			<-done
			<-renderer.busy
			return ctxError(ctx)
		}
		go func() {
			select {
			case err := <-done:
				finish(err)
			case <-limit.C:
				drop(c)
				<-done
				<-renderer.busy
			}
		}()
		return ctx.Err()
	}
}

// errPassword is a PDF locked with a password to open it: sound, and not
// the reviewer's to unlock (a password is the customer's secret, and the
// console never asks for one).
var errPassword = failf(KindProtected, "The PDF is protected by a password, so it cannot be shown. Ask the customer for the same document saved without a password; do not ask for the password.")

// refusal maps an "error" line of the renderer to the reviewer's words;
// any other line is garbage.
func refusal(line string, page int) error {
	switch pdfproto.ErrorKind(line) {
	case pdfproto.KindUnopenable:
		return failf(KindDamaged, "The file is damaged: it cannot be opened as a PDF.")
	case pdfproto.KindPassword:
		return errPassword
	case pdfproto.KindNoPages:
		return failf(KindDamaged, "The file is damaged: the PDF has no page.")
	case pdfproto.KindNoSize:
		return failf(KindDamaged, "The file is damaged: page %d has no size.", page+1)
	case pdfproto.KindUndrawable:
		return failf(KindDamaged, "The file is damaged: page %d cannot be drawn.", page+1)
	case pdfproto.KindTooLarge:
		return failf(KindTooLarge, "Refused: the file is over 10 MiB.")
	}
	return pdfproto.ErrGarbage
}

// pdfPages counts a PDF's pages; a PDF with none is damaged.
func pdfPages(ctx context.Context, data []byte, lim Limits) (int, error) {
	var n int
	err := exchange(ctx, lim, func(c *child) error {
		if err := pdfproto.WritePages(c.in, data); err != nil {
			return err
		}
		line, err := pdfproto.ReadLine(c.out)
		if err != nil {
			return err
		}
		f, err := pdfproto.Fields(line, "pages", 1, math.MaxInt32)
		if err != nil {
			return refusal(line, 0)
		}
		if f[0] < 1 {
			return failf(KindDamaged, "The file is damaged: the PDF has no page.")
		}
		n = int(f[0])
		return nil
	})
	return n, err
}

// pdfPage draws page i at 150 dpi, smaller when that would exceed the pixel
// limit or 8192 pixels a side, and says whether its text is in a font the
// PDF does not embed (substituted). The child may answer no more than
// that: a larger size is garbage, refused before anything is allocated.
func pdfPage(ctx context.Context, data []byte, i int, lim Limits) (image.Image, bool, error) {
	var out *image.RGBA
	var subst bool
	err := exchange(ctx, lim, func(c *child) error {
		if err := pdfproto.WritePage(c.in, i, lim.MaxPixels, data); err != nil {
			return err
		}
		line, err := pdfproto.ReadLine(c.out)
		if err != nil {
			return err
		}
		f, err := pdfproto.Fields(line, "page", 3, maxPageSide)
		if err != nil {
			return refusal(line, i)
		}
		w, h := int(f[0]), int(f[1])
		if w < 1 || h < 1 || int64(w)*int64(h) > lim.MaxPixels || f[2] > 1 {
			return pdfproto.ErrGarbage
		}
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		if _, err := io.ReadFull(c.out, img.Pix); err != nil {
			return err
		}
		out, subst = img, f[2] == 1
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, subst, nil
}

// maxPageSide is the most pixels a drawn page has on a side (with one for
// the renderer's rounding).
const maxPageSide = 8192 + 1

// RendererStarted reports whether the PDF renderer is running (the
// window's start must not pay for it).
func RendererStarted() bool {
	renderer.mu.Lock()
	defer renderer.mu.Unlock()
	return renderer.child != nil && !renderer.child.ended()
}

// PrepareRenderer compiles the PDF renderer into its cache folder ahead
// of the first PDF, so that the first PDF after installing takes half a
// second, not six: it runs "reviewer-pdf -prepare", a process of its own
// at the lowest priority (nice 19 on Linux), with no environment, that
// compiles PDFium when the folder does not hold it yet and exits (it
// returns at once when a mark in the folder says it was done). It does
// nothing without a cache folder, without a renderer, or when one is
// already running (it compiled, or loaded, the code). ctx ends it.
func PrepareRenderer(ctx context.Context, lim Limits) error {
	lim = lim.withDefaults()
	if lim.RendererCache == "" || RendererStarted() {
		return nil
	}
	path := rendererPath(lim)
	if path == "" {
		return nil
	}
	cmd := exec.CommandContext(ctx, path, "-prepare", "-cache", lim.RendererCache, "-memory-mib", strconv.Itoa(lim.PDFMemoryMiB))
	cmd.Env = []string{}
	cmd.Dir = "/"
	cmd.SysProcAttr = endsWithConsole()
	return cmd.Run()
}
