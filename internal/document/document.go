// Package document turns the bytes of a customer's identity document (as
// the screening service serves them) into pictures a reviewer can look at:
// JPEG, PNG and WebP images, and the pages of a PDF.
//
// The bytes are not trusted. Before anything is decoded, the declared media
// type is checked against the first bytes, and an image's dimensions are
// read with image.DecodeConfig and refused over a limit (MaxPixels), so a
// small file that claims to be huge never allocates its claim. A damaged,
// truncated or lying file returns an error (never a panic, never a partial
// picture); nothing is written to disk. PDF pages are drawn by PDFium in
// WebAssembly in a child process, the reviewer-pdf program (pdf.go; the
// renderer itself is the pdfium package, which only that program links),
// started only when a PDF is first looked at, bounded in time by the PDF
// time limit and the caller's context (the child is killed) and in memory
// by its address-space and WebAssembly limits.
//
// A JPEG opened for a view (OpenView) much smaller than itself is decoded
// at 1/2, 1/4 or 1/8 of its size (the jpegscale package), the largest
// reduction that still covers the view, so that the first view of a
// 20-megapixel photo costs a fraction of a full decode. The full
// resolution is decoded when it is first asked for (Page), once, and kept.
//
// The package knows nothing of Fyne: the window scales pictures to its view
// with Fit or View, off its UI goroutine; fuzzing and benchmarks run here.
package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/image/webp"

	"github.com/trustscreen/reviewer/internal/jpegscale"
	"github.com/trustscreen/reviewer/policy"
)

// The media types the console shows.
const (
	JPEG = "image/jpeg"
	PNG  = "image/png"
	WebP = "image/webp"
	PDF  = "application/pdf"
)

// Limits bound what a document may cost to show. Every number comes from
// the environment (LimitsFromEnv), with these defaults.
type Limits struct {
	// MaxPixels is the most pixels a picture may decode to (an image, or a
	// PDF page as drawn): REVIEWER_MAX_MEGAPIXELS, default 60.
	MaxPixels int64
	// PDFTimeout bounds drawing one PDF page (the renderer's start is
	// bounded by the caller's context only): REVIEWER_PDF_TIMEOUT,
	// default 10 s.
	PDFTimeout time.Duration
	// PDFMemoryMiB bounds the PDF renderer's memory (its WebAssembly
	// memory): REVIEWER_PDF_MEMORY_MIB, default 512.
	PDFMemoryMiB int
	// RendererCache is a folder (made 0700) where the PDF renderer keeps
	// its compiled machine code between runs, never a document; empty: it
	// is compiled in memory on every run's first PDF (tens of seconds on a
	// loaded machine, and some 300 MB while compiling). From
	// REVIEWER_PDF_RENDERER_CACHE ("off": none); by default in the user's
	// cache folder.
	RendererCache string
	// Renderer is where the PDF renderer (reviewer-pdf) is when it is not
	// beside the console's executable: REVIEWER_PDF_RENDERER.
	Renderer string
	// PrepareAfter is how long after the window's start the renderer is
	// compiled into RendererCache, in the background at the lowest
	// priority, when it is not there yet (PrepareRenderer):
	// REVIEWER_PDF_PREPARE_AFTER, default 20 s; "off" (negative): never,
	// and the first PDF compiles it.
	PrepareAfter time.Duration
}

// Defaults.
const (
	DefaultMegapixels   = 60
	DefaultPDFTimeout   = 10 * time.Second
	DefaultPDFMemoryMiB = 512
	DefaultPrepareAfter = 20 * time.Second
)

// DefaultLimits are the limits with no environment.
func DefaultLimits() Limits {
	return Limits{MaxPixels: DefaultMegapixels * 1_000_000, PDFTimeout: DefaultPDFTimeout, PDFMemoryMiB: DefaultPDFMemoryMiB, PrepareAfter: DefaultPrepareAfter}
}

// LimitsFromEnv reads the limits from the environment; a value that is not
// a positive number is an error that names the variable.
func LimitsFromEnv() (Limits, error) { return LimitsFrom(os.LookupEnv) }

// LimitsFrom reads the limits from the variables lookup finds (the command
// line's environment).
func LimitsFrom(lookup func(string) (string, bool)) (Limits, error) {
	getenv := func(k string) string { v, _ := lookup(k); return v }
	l := DefaultLimits()
	if v := strings.TrimSpace(getenv("REVIEWER_MAX_MEGAPIXELS")); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n <= 0 || n > 1e6 {
			return l, fmt.Errorf("REVIEWER_MAX_MEGAPIXELS=%q: want a positive number of megapixels", v)
		}
		l.MaxPixels = int64(n * 1_000_000)
	}
	if v := strings.TrimSpace(getenv("REVIEWER_PDF_TIMEOUT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return l, fmt.Errorf("REVIEWER_PDF_TIMEOUT=%q: want a positive duration such as 10s", v)
		}
		l.PDFTimeout = d
	}
	switch v := strings.TrimSpace(getenv("REVIEWER_PDF_RENDERER_CACHE")); v {
	case "off":
	case "":
		if dir, err := os.UserCacheDir(); err == nil {
			l.RendererCache = filepath.Join(dir, "trustscreen-reviewer", "pdfium")
		}
	default:
		l.RendererCache = v
	}
	l.Renderer = strings.TrimSpace(getenv("REVIEWER_PDF_RENDERER"))
	switch v := strings.TrimSpace(getenv("REVIEWER_PDF_PREPARE_AFTER")); v {
	case "":
	case "off":
		l.PrepareAfter = -1
	default:
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return l, fmt.Errorf("REVIEWER_PDF_PREPARE_AFTER=%q: want a duration such as 20s, or off", v)
		}
		l.PrepareAfter = d
	}
	if v := strings.TrimSpace(getenv("REVIEWER_PDF_MEMORY_MIB")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 64 || n > 4096 {
			return l, fmt.Errorf("REVIEWER_PDF_MEMORY_MIB=%q: want a number of MiB from 64 to 4096", v)
		}
		l.PDFMemoryMiB = n
	}
	return l, nil
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxPixels <= 0 {
		l.MaxPixels = d.MaxPixels
	}
	if l.PDFTimeout <= 0 {
		l.PDFTimeout = d.PDFTimeout
	}
	if l.PDFMemoryMiB <= 0 {
		l.PDFMemoryMiB = d.PDFMemoryMiB
	}
	return l
}

// Error is why a document cannot be shown, in plain words for the
// reviewer (it never holds the document's bytes).
type Error struct {
	Kind Kind
	msg  string
}

func (e *Error) Error() string { return e.msg }

// Is lets errors.Is match an Error by its kind (ErrDamaged and so on).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.msg == "" && t.Kind == e.Kind
}

// Kind sorts the refusals.
type Kind int

const (
	KindDamaged Kind = iota + 1
	KindMismatch
	KindTooLarge
	KindUnsupported
	KindTimeout
	KindRenderer
	// KindNoRenderer: the PDF renderer is not installed.
	KindNoRenderer
	// KindProtected: a PDF that needs a password to open.
	KindProtected
)

// Targets for errors.Is.
var (
	ErrDamaged     = &Error{Kind: KindDamaged}
	ErrMismatch    = &Error{Kind: KindMismatch}
	ErrTooLarge    = &Error{Kind: KindTooLarge}
	ErrUnsupported = &Error{Kind: KindUnsupported}
	ErrTimeout     = &Error{Kind: KindTimeout}
	ErrRenderer    = &Error{Kind: KindRenderer}
	ErrNoRenderer  = &Error{Kind: KindNoRenderer}
	ErrProtected   = &Error{Kind: KindProtected}
)

func failf(k Kind, format string, a ...any) error {
	return &Error{Kind: k, msg: fmt.Sprintf(format, a...)}
}

// Sniff names the media type the first bytes say, or "" for none the
// console shows: policy's rule (SniffMediaType), the one the upload is
// judged by, so that the viewer and the upload never disagree.
func Sniff(b []byte) string { return policy.SniffMediaType(b) }

// ErrFileTooLarge is a file over policy.MaxFileSize (the contract's 10 MiB).
var ErrFileTooLarge error = &Error{Kind: KindTooLarge, msg: "Refused: the file is over 10 MiB."}

// ErrUnrecognised is a file with no declared type (a local file: reviewer
// render) whose first bytes are none the console shows.
var ErrUnrecognised error = &Error{Kind: KindUnsupported, msg: "The console cannot show this kind of file: its first bytes are not those of a JPEG, PNG or WebP image or a PDF."}

// normalType lowers a declared media type and drops its parameters.
func normalType(declared string) string {
	t, _, _ := strings.Cut(declared, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	if t == "image/jpg" || t == "image/pjpeg" {
		t = JPEG
	}
	return t
}

func plainType(t string) string {
	switch t {
	case JPEG:
		return "a JPEG image"
	case PNG:
		return "a PNG image"
	case WebP:
		return "a WebP image"
	case PDF:
		return "a PDF"
	}
	return "an unknown kind of file"
}

// Check refuses bytes whose first bytes are not the declared type (or a
// type the console does not show), and returns the type.
func Check(declared string, data []byte) (string, error) {
	want := normalType(declared)
	switch want {
	case JPEG, PNG, WebP, PDF:
	default:
		return "", failf(KindUnsupported, "The console cannot show this kind of file (%s).", safeType(declared))
	}
	if len(data) == 0 {
		return "", failf(KindDamaged, "The file is damaged: it is empty.")
	}
	if len(data) > policy.MaxFileSize { // the contract's limit, whatever was declared
		return "", ErrFileTooLarge
	}
	got := Sniff(data)
	if got != want {
		return "", failf(KindMismatch, "Refused: the service said %s, but the file's first bytes are %s.", plainType(want), plainType(got))
	}
	return want, nil
}

// safeType keeps a declared type short and printable for a message.
func safeType(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 40 {
			b.WriteString("…")
			break
		}
		if r >= 0x20 && r < 0x7f {
			b.WriteRune(r)
		} else {
			b.WriteRune('?')
		}
	}
	if b.Len() == 0 {
		return "none declared"
	}
	return b.String()
}

// Doc is a checked document: an image decoded (whole, or reduced for a
// view with its full resolution decoded on demand), or a PDF whose pages
// are drawn when asked for.
type Doc struct {
	MediaType string
	Pages     int
	img       image.Image // the image as Open decoded it
	scale     int         // img's reduction: 1 (whole), 2, 4 or 8
	w, h      int         // the image's size, as shown (after its orientation)
	// orientation is the image's EXIF orientation (1 to 8), applied to
	// img and to the full decode: the picture is shown upright.
	orientation int
	full        *fullDecode // the whole image, when img is reduced
	pdf         []byte
	lim         Limits
	fonts       *fontNotes // a PDF's pages drawn with a font substituted
}

// fontNotes are the pages of a PDF whose text was drawn in a font other
// than the one it names (the PDF does not embed it).
type fontNotes struct {
	mu    sync.Mutex
	pages map[int]bool
}

// fullDecode is the one decode of a reduced image at full resolution:
// started by the first caller that needs it, waited for by the others.
type fullDecode struct {
	once    sync.Once
	done    chan struct{}
	data    []byte // until decoded
	img     image.Image
	err     error
	decodes atomic.Int32 // how many times it ran (tests: once)
}

// Open checks and decodes a document. For an image it decodes the whole
// picture (after DecodeConfig says its size is within the limit); for a
// PDF it loads the renderer (the first time) and counts the pages. ctx
// bounds the work that can be bounded (the PDF renderer); an image's
// decode is bounded by the byte and pixel limits (and a JPEG's by its
// decoder's limit of 256 scans: jpegscale).
func Open(ctx context.Context, declared string, data []byte, lim Limits) (*Doc, error) {
	return OpenView(ctx, declared, data, lim, 0, 0)
}

// OpenView is Open for a first view of viewW × viewH pixels: a JPEG at
// least twice as large as the picture fitted to that view is decoded at
// the largest reduction (1/2, 1/4, 1/8) whose result still covers it, so
// that fitting it only shrinks. Its full resolution is decoded when Page
// asks for it. The checks and refusals are Open's, all of them before any
// decode; a damaged file is refused here, whatever the scale (the whole
// entropy-coded data is read at every scale). A view of 0 × 0 is Open.
func OpenView(ctx context.Context, declared string, data []byte, lim Limits, viewW, viewH int) (*Doc, error) {
	return OpenViewEarly(ctx, declared, data, lim, viewW, viewH, nil)
}

// Early is a progressive JPEG's early picture (OpenViewEarly): the 1/8
// picture its first scans make, upright, enlarged to the size the whole
// picture fits the view at. It is not a checked document.
type Early struct {
	Fit  *image.RGBA
	W, H int // the whole picture's size, upright
}

// OpenViewEarly is OpenView that, for a progressive JPEG, hands early the
// picture of the file's first scans (Early) while it decodes the rest,
// on the decoding goroutine, once at most. The rest of the file is still
// decoded whole: only OpenViewEarly's own answer says whether the file can
// be shown, and a file cut short or damaged after its first scans gives an
// early picture and then the refusal. A caller shows the early picture as
// what it is (the viewer: "Sharpening…") and replaces it by the answer.
func OpenViewEarly(ctx context.Context, declared string, data []byte, lim Limits, viewW, viewH int, early func(Early)) (*Doc, error) {
	lim = lim.withDefaults()
	t, err := Check(declared, data)
	if err != nil {
		return nil, err
	}
	if t == PDF {
		n, err := pdfPages(ctx, data, lim)
		if err != nil {
			return nil, err
		}
		return &Doc{MediaType: t, Pages: n, pdf: data, lim: lim, fonts: &fontNotes{pages: map[int]bool{}}}, nil
	}
	img, w, h, scale, o, err := decodeImage(ctx, t, data, lim, viewW, viewH, early)
	if err != nil {
		return nil, err
	}
	d := &Doc{MediaType: t, Pages: 1, img: img, scale: scale, w: w, h: h, orientation: o, lim: lim}
	if scale > 1 {
		d.full = &fullDecode{done: make(chan struct{}), data: data}
	}
	return d, nil
}

// reduction is the largest denominator (8, 4, 2; else 1) at which a w × h
// picture still covers its fit to viewW × viewH.
func reduction(w, h, viewW, viewH int) int {
	fw, fh := FitSize(w, h, viewW, viewH)
	if fw == 0 {
		return 1
	}
	for _, d := range []int{8, 4, 2} {
		if (w+d-1)/d >= fw && (h+d-1)/d >= fh {
			return d
		}
	}
	return 1
}

// decodeImage decodes an image whose type is checked, refusing one whose
// declared dimensions exceed the limit before any pixel is allocated. A
// JPEG is decoded reduced for a view of viewW × viewH (0 × 0: whole); the
// scale is returned with the image's full size. The decode stops, with
// ctx's error, at its next read once ctx ends (a large progressive JPEG
// holds hundreds of megabytes until its decode returns). The picture is
// returned as its EXIF orientation o asks it to be shown (orient.go), and
// w × h is its size so turned.
// A progressive JPEG's early picture is handed to early (OpenViewEarly),
// when it is not nil and the view is not 0 × 0.
func decodeImage(ctx context.Context, t string, data []byte, lim Limits, viewW, viewH int, early func(Early)) (img image.Image, w, h, scale, o int, err error) {
	defer func() {
		// A decoder bug on hostile bytes is a damaged file, not a
		// crashed window.
		if r := recover(); r != nil {
			img, err = nil, failf(KindDamaged, "The file is damaged: the %s decoder gave up on it.", strings.TrimPrefix(t, "image/"))
		}
	}()
	var cfg image.Config
	var decode func(io.Reader) (image.Image, error)
	scale = 1
	switch t {
	case JPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
		// Stopped between scans too: a progressive file reads its few
		// kilobytes a scan at a time, or all at once.
		decode = func(r io.Reader) (image.Image, error) {
			if early == nil || viewW <= 0 || viewH <= 0 {
				return jpegscale.DecodeScaledContext(ctx, r, scale)
			}
			return jpegscale.DecodeScaledEarly(ctx, r, scale, func(m image.Image) {
				// Upright, enlarged to the view: what the first view
				// will be, blurred.
				o := exifOrientation(t, data)
				w, h := cfg.Width, cfg.Height
				if o >= 5 {
					w, h = h, w
				}
				fw, fh := FitSize(w, h, viewW, viewH)
				if fit, err := enlarge(ctx, orient(m, o), fw, fh); err == nil {
					early(Early{Fit: fit, W: w, H: h})
				}
			})
		}
	case PNG:
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
		decode = func(r io.Reader) (image.Image, error) { return png.Decode(r) }
	case WebP:
		cfg, err = webp.DecodeConfig(bytes.NewReader(data))
		decode = func(r io.Reader) (image.Image, error) {
			m, err := webp.Decode(r)
			if err != nil {
				return nil, err
			}
			// A lossy WebP's colours as libwebp draws them (webp.go).
			return webpRGB(m), nil
		}
	default:
		return nil, 0, 0, 0, 0, failf(KindUnsupported, "The console cannot show this kind of file.")
	}
	var unsupported jpeg.UnsupportedError
	if t == JPEG && err != nil {
		if w := jpegProcessWords(data); w != "" {
			// The standard reader's words for these are "unknown marker":
			// name the kind, so that she knows the file is likely sound.
			return nil, 0, 0, 0, 0, failf(KindUnsupported, "The console cannot show this JPEG: it is %s. The file may be sound: look at it in another program before asking for a new one.", w)
		}
	}
	if errors.As(err, &unsupported) {
		// A valid JPEG of a kind the decoder does not read (a sampling,
		// 12-bit samples, arithmetic coding): the console's limit, not a
		// fault of the customer's file. The reason is the decoder's own
		// fixed words, never the file's bytes.
		return nil, 0, 0, 0, 0, failf(KindUnsupported, "The console cannot show this JPEG: it is of a kind it does not decode (%s). The file may be sound: look at it in another program before asking for a new one.", string(unsupported))
	}
	if cutShort(err) {
		return nil, 0, 0, 0, 0, errCutShort
	}
	if err != nil {
		return nil, 0, 0, 0, 0, failf(KindDamaged, "The file is damaged: its header cannot be read (%s).", plainType(t))
	}
	if err := checkSize(cfg.Width, cfg.Height, lim); err != nil {
		return nil, 0, 0, 0, 0, err
	}
	if t == JPEG {
		scale = reduction(cfg.Width, cfg.Height, viewW, viewH)
	}
	if t == JPEG && int64(cfg.Width)*int64(cfg.Height) >= bigDecode && jpegscale.IsProgressive(bytes.NewReader(data)) {
		// A large progressive decode leaves hundreds of megabytes of
		// garbage (its coefficients: 4 bytes for each of 64 per block,
		// whatever the scale), which Go's heap would keep mapped for
		// minutes: hand it back as soon as the decode ends. A baseline
		// decode leaves little (its blocks go straight to the picture), and
		// its first view does not pay for a collection.
		defer debug.FreeOSMemory()
	}
	img, err = decode(ctxReader{ctx, bytes.NewReader(data)})
	if cerr := ctx.Err(); cerr != nil {
		return nil, 0, 0, 0, 0, cerr
	}
	if jpegscale.IsTooMuchWork(err) {
		// More scans, or more blocks passed over, than any encoder writes:
		// a file made to keep the console decoding. A new file is what she
		// asks for, as for a damaged one.
		return nil, 0, 0, 0, 0, failf(KindDamaged, "The file is refused: it asks for far more decoding work than any photo needs (a JPEG made to stall a viewer).")
	}
	if cutShort(err) {
		return nil, 0, 0, 0, 0, errCutShort
	}
	if err != nil {
		return nil, 0, 0, 0, 0, failf(KindDamaged, "The file is damaged: %s that cannot be decoded whole.", plainType(t))
	}
	b := img.Bounds()
	if b.Dx() != (cfg.Width+scale-1)/scale || b.Dy() != (cfg.Height+scale-1)/scale {
		return nil, 0, 0, 0, 0, failf(KindDamaged, "The file is damaged: its size is not the one its header says.")
	}
	w, h, o = cfg.Width, cfg.Height, exifOrientation(t, data)
	if o >= 5 {
		w, h = h, w
	}
	return orient(img, o), w, h, scale, o, nil
}

// errCutShort is a picture whose bytes end before its data does: what a
// reviewer asks for is the rest of it.
var errCutShort = failf(KindDamaged, "The file is cut short: ask the customer for the whole file.")

// cutShort reports whether a decoder stopped because the bytes ran out.
func cutShort(err error) bool {
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || jpegscale.IsCutShort(err)
}

// bigDecode is the size, in pixels, from which a progressive JPEG's
// decode garbage is returned to the system at once (decodeImage).
const bigDecode = 16_000_000

// ctxReader is a reader that fails once its context ends, so that a
// decoder reading from it stops at its next read (a JPEG decoder reads a
// few kilobytes at a time, the others as they go).
type ctxReader struct {
	ctx context.Context
	r   *bytes.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func checkSize(w, h int, lim Limits) error {
	if w <= 0 || h <= 0 {
		return failf(KindDamaged, "The file is damaged: it says it is %d × %d pixels.", w, h)
	}
	if int64(w)*int64(h) > lim.MaxPixels {
		return failf(KindTooLarge, "Refused: the picture is %d × %d pixels (%.0f megapixels), over the limit of %.0f megapixels.",
			w, h, float64(w)*float64(h)/1e6, float64(lim.MaxPixels)/1e6)
	}
	return nil
}

// Page returns page i (0 first) at full resolution: the image itself, or a
// PDF page drawn at 150 dpi (within MaxPixels). For a PDF the page is drawn
// under the PDF time limit and ctx. An image opened reduced is decoded
// whole on the first call (once: a second caller waits for the first
// decode, which goes on when ctx ends, for the next caller) and kept.
func (d *Doc) Page(ctx context.Context, i int) (image.Image, error) {
	if i < 0 || i >= d.Pages {
		return nil, fmt.Errorf("page %d of %d: %w", i+1, d.Pages, ErrUnsupported)
	}
	if d.full != nil {
		return d.full.wait(ctx, d)
	}
	if d.img != nil {
		return d.img, nil
	}
	img, subst, err := pdfPage(ctx, d.pdf, i, d.lim)
	if err == nil {
		d.fonts.mu.Lock()
		d.fonts.pages[i] = subst
		d.fonts.mu.Unlock()
	}
	return img, err
}

// FontsSubstituted reports whether page i, as last drawn, has text in a
// font the PDF does not embed, drawn in one of the system's fonts (or the
// renderer's own) instead: its shapes may differ from what the sender saw,
// and a character no font has is missing. False for an image, and for a
// page not drawn yet.
func (d *Doc) FontsSubstituted(i int) bool {
	if d.fonts == nil {
		return false
	}
	d.fonts.mu.Lock()
	defer d.fonts.mu.Unlock()
	return d.fonts.pages[i]
}

// FontsSubstitutedWords is what the viewer and reviewer render say of a
// page whose fonts were substituted.
const FontsSubstitutedWords = "the PDF does not include a font its text uses: that text is drawn in a font of this computer's, so its shapes may differ from the sender's"

func (f *fullDecode) wait(ctx context.Context, d *Doc) (image.Image, error) {
	f.once.Do(func() {
		go func() {
			defer close(f.done)
			f.decodes.Add(1)
			// Not stopped by the caller's ctx: the decode goes on for
			// the next caller.
			img, _, _, _, _, err := decodeImage(context.Background(), d.MediaType, f.data, d.lim, 0, 0, nil)
			f.img, f.err, f.data = img, err, nil
		}()
	})
	select {
	case <-f.done:
		return f.img, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Base is page i as a window first draws it, and whether it is the full
// resolution: an image opened reduced gives its reduced picture until the
// full one is decoded (Page), without waiting; anything else is Page.
func (d *Doc) Base(ctx context.Context, i int) (image.Image, bool, error) {
	if d.full != nil && i == 0 {
		select {
		case <-d.full.done:
		default:
			return d.img, false, nil
		}
	}
	img, err := d.Page(ctx, i)
	return img, err == nil, err
}

// The viewer's first size, in pixels: a page's first view is fitted to it
// (the window's viewer, and reviewer render without --full).
const ViewerWidth, ViewerHeight = 1280, 800

// FirstView is page i as the viewer first draws it in w × h: its base
// picture (a large JPEG's reduced decode, isFull false, or the page at
// full size) and the page fitted to w × h, scaled from the base when that
// is the full page.
func (d *Doc) FirstView(ctx context.Context, i, w, h int) (base image.Image, isFull bool, fit *image.RGBA, err error) {
	base, isFull, err = d.Base(ctx, i)
	if err != nil {
		return nil, false, nil, err
	}
	if isFull {
		// The page itself (a PDF's drawn page, a whole image): scaled
		// from it, not drawn again by View.
		fit, err = Fit(ctx, base, w, h)
	} else {
		fit, err = d.View(ctx, i, w, h)
	}
	if err != nil {
		return nil, false, nil, err
	}
	return base, isFull, fit, nil
}

// View is page i fitted to w × h (Fit): drawn from the reduced image when
// it covers the fit, else from the full resolution.
func (d *Doc) View(ctx context.Context, i, w, h int) (*image.RGBA, error) {
	if d.full != nil && i == 0 {
		fw, fh := FitSize(d.w, d.h, w, h)
		if b := d.img.Bounds(); b.Dx() >= fw && b.Dy() >= fh {
			return scaleTo(ctx, d.img, fw, fh)
		}
	}
	p, err := d.Page(ctx, i)
	if err != nil {
		return nil, err
	}
	return Fit(ctx, p, w, h)
}

// Orientation is the EXIF orientation (1 to 8) the image was turned by to
// be shown upright; 1 when it is shown as stored (and for a PDF).
func (d *Doc) Orientation() int { return max(1, d.orientation) }

// Scale is the reduction an image was opened at: 1 (whole), 2, 4 or 8.
func (d *Doc) Scale() int { return max(1, d.scale) }

// Size is the pixel size of an image at full resolution (0, 0 for a PDF
// until a page is drawn).
func (d *Doc) Size() (int, int) {
	if d.img == nil {
		return 0, 0
	}
	return d.w, d.h
}

// errorsAs is a helper for callers: the document's refusal, if err is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
