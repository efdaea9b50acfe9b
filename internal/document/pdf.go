package document

import (
	"context"
	"errors"
	"image"
	"io"
	"math"
	"os"
	"sync"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// The PDF renderer: PDFium compiled to WebAssembly, run by wazero (no
// system package, no cgo). It is started the first time a PDF is looked at
// (compiling the module takes seconds and tens of MB, which a session that
// shows no PDF never pays), then kept for the process. Its memory is
// bounded by the runtime's page limit, and each call by a context: when
// the context ends, the instance is killed (the runtime closes the module
// on its context) and a fresh one is made for the next call.
var renderer struct {
	mu       sync.Mutex
	pool     pdfium.Pool
	starting chan struct{} // closed when the start in flight ends
	err      error         // why the last start failed
}

// pdfiumPool starts the renderer once: callers wait for the one start in
// flight (or their ctx), and a failed start is tried again on the next PDF.
func pdfiumPool(ctx context.Context, lim Limits) (pdfium.Pool, error) {
	renderer.mu.Lock()
	if p := renderer.pool; p != nil {
		renderer.mu.Unlock()
		return p, nil
	}
	if renderer.starting == nil {
		ch := make(chan struct{})
		renderer.starting = ch
		go func() {
			p, err := startRenderer(lim)
			renderer.mu.Lock()
			renderer.pool, renderer.err, renderer.starting = p, err, nil
			renderer.mu.Unlock()
			close(ch)
		}()
	}
	ch := renderer.starting
	renderer.mu.Unlock()
	select {
	case <-ch:
		renderer.mu.Lock()
		p, err := renderer.pool, renderer.err
		renderer.mu.Unlock()
		if p == nil {
			return nil, failf(KindRenderer, "The PDF renderer could not start: %v", err)
		}
		return p, nil
	case <-ctx.Done():
		return nil, ctxError(ctx) // the start goes on, for the next PDF
	}
}

func startRenderer(lim Limits) (pdfium.Pool, error) {
	rc := wazero.NewRuntimeConfig()
	if lim.RendererCache != "" && privateDir(lim.RendererCache) {
		// Compiled once, then loaded: seconds and a few hundred MB of
		// compiling saved on every later start.
		if cache, err := wazero.NewCompilationCacheWithDir(lim.RendererCache); err == nil {
			rc = rc.WithCompilationCache(cache)
		}
	}
	return webassembly.Init(webassembly.Config{
		MinIdle: 0, MaxIdle: 1, MaxTotal: 2,
		RuntimeConfig: rc.
			// PDFium's setjmp/longjmp are WebAssembly exceptions.
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithMemoryLimitPages(uint32(lim.PDFMemoryMiB) * 16). // 64 KiB pages
			WithCloseOnContextDone(true),
		// No file system at all (the library's default mounts "/"): the
		// document is handed over as bytes.
		FSConfig: wazero.NewFSConfig(),
		Stdout:   io.Discard, Stderr: io.Discard,
	})
}

func ctxError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return failf(KindTimeout, "Refused: the PDF took too long to draw.")
	}
	return ctx.Err()
}

// withInstance runs fn on a renderer instance under ctx and the PDF time
// limit; when either ends first, the instance is killed so that a hostile
// PDF cannot keep the CPU.
func withInstance(ctx context.Context, lim Limits, fn func(pdfium.Pdfium) error) error {
	pool, err := pdfiumPool(ctx, lim)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, lim.PDFTimeout)
	defer cancel()
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctxError(ctx)
		}
		return failf(KindRenderer, "The PDF renderer is not available.")
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- failf(KindDamaged, "The file is damaged: the PDF renderer gave up on it.")
			}
		}()
		done <- fn(inst)
	}()
	select {
	case err := <-done:
		inst.Close()
		return err
	case <-ctx.Done():
		inst.Kill()
		<-done // the module is closed: the call returns with an error
		return ctxError(ctx)
	}
}

func openPDF(inst pdfium.Pdfium, data []byte) (references.FPDF_DOCUMENT, func(), error) {
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &data})
	if err != nil {
		return "", nil, failf(KindDamaged, "The file is damaged: it cannot be opened as a PDF.")
	}
	return doc.Document, func() { inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document}) }, nil
}

// pdfPages counts a PDF's pages; a PDF with none is damaged.
func pdfPages(ctx context.Context, data []byte, lim Limits) (int, error) {
	var n int
	err := withInstance(ctx, lim, func(inst pdfium.Pdfium) error {
		doc, closeDoc, err := openPDF(inst, data)
		if err != nil {
			return err
		}
		defer closeDoc()
		c, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
		if err != nil || c.PageCount < 1 {
			return failf(KindDamaged, "The file is damaged: the PDF has no page.")
		}
		n = c.PageCount
		return nil
	})
	return n, err
}

// pdfPage draws page i at 150 dpi, smaller when that would exceed the pixel
// limit or 8192 pixels a side, into a picture of the process's own memory.
func pdfPage(ctx context.Context, data []byte, i int, lim Limits) (image.Image, error) {
	var out *image.RGBA
	err := withInstance(ctx, lim, func(inst pdfium.Pdfium) error {
		doc, closeDoc, err := openPDF(inst, data)
		if err != nil {
			return err
		}
		defer closeDoc()
		size, err := inst.GetPageSize(&requests.GetPageSize{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}})
		if err != nil || !(size.Width > 0) || !(size.Height > 0) || math.IsInf(size.Width, 0) || math.IsInf(size.Height, 0) {
			return failf(KindDamaged, "The file is damaged: page %d has no size.", i+1)
		}
		w, h := size.Width*pdfDPI/72, size.Height*pdfDPI/72 // points to pixels
		scale := 1.0
		if px := w * h; px > float64(lim.MaxPixels) {
			scale = math.Sqrt(float64(lim.MaxPixels) / px)
		}
		scale = math.Min(scale, math.Min(8192/w, 8192/h))
		pw, ph := max(1, int(w*scale)), max(1, int(h*scale))
		r, err := inst.RenderPageInPixels(&requests.RenderPageInPixels{
			Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}, Width: pw, Height: ph})
		if err != nil {
			return failf(KindDamaged, "The file is damaged: page %d cannot be drawn.", i+1)
		}
		defer r.Cleanup()
		img := r.Result.Image
		if img == nil {
			return failf(KindDamaged, "The file is damaged: page %d cannot be drawn.", i+1)
		}
		// The picture lives in the module's memory until Cleanup: copy it.
		out = image.NewRGBA(img.Bounds())
		copy(out.Pix, img.Pix)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RendererStarted reports whether the PDF renderer has been started (the
// window's start must not pay for it).
func RendererStarted() bool {
	renderer.mu.Lock()
	defer renderer.mu.Unlock()
	return renderer.pool != nil
}

// privateDir makes dir (0700) and reports whether only this user may write
// to it: the renderer runs the machine code it finds there.
func privateDir(dir string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir() && fi.Mode().Perm()&0o022 == 0
}
