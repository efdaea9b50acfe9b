// Package pdfium draws PDF pages with PDFium compiled to WebAssembly, run
// by wazero (no system package, no cgo), and serves them on the protocol of
// pdfproto. Only the PDF renderer's own executable (cmd/reviewer-pdf)
// imports it: its bindings and the runtime are some 14 MB of code that
// would otherwise be resident in every console window, PDF or not.
//
// The renderer's file system is the system's font folders alone, read-only
// (the library's default mounts "/"; the document is handed over as
// bytes): PDFium draws text in a font the PDF does not embed with one of
// them, and Page says when it did. Its WebAssembly memory is capped, and it
// reads nothing else from disk but its own compiled-code cache folder.
package pdfium

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/trustscreen/reviewer/internal/document/pdfproto"
)

// DPI is the resolution a page is drawn at for 100 %.
const DPI = 150

// MaxSide is the most pixels a drawn page has on a side.
const MaxSide = 8192

// Config is what the renderer needs at its start.
type Config struct {
	// MemoryMiB caps the WebAssembly memory.
	MemoryMiB int
	// CacheDir keeps the compiled machine code between runs ("" none);
	// used only when it is a folder no other user may write to.
	CacheDir string
	// FontDirs are the folders of fonts PDFium may read (read-only), for
	// text in a font the PDF does not embed, each seen at its own path;
	// nil: Fonts, else SystemFontDirs.
	FontDirs []string
	// Fonts are folders of fonts each seen at a path PDFium scans (the
	// -font arguments: Windows' and macOS's folders, found by the
	// console); used when FontDirs is nil.
	Fonts []pdfproto.FontFolder
}

// SystemFontDirs are the folders PDFium's Linux font loader scans (its
// compiled-in defaults, which the WebAssembly build keeps): each existing
// one is seen read-only at its own path in the module's file system, and
// nothing else is. They are the system's, written by its packages only;
// a link in one is followed (os.DirFS), as fontconfig follows it.
var SystemFontDirs = []string{"/usr/share/fonts", "/usr/share/X11/fonts/Type1", "/usr/share/X11/fonts/TTF", "/usr/local/share/fonts"}

// fontMounts is a file system of dirs alone, read-only, each at its own
// path. It is one mount at the root: the module's C library (Emscripten's
// standalone WASI) resolves every absolute path against the first
// preopened folder as "/", so a folder mounted at its own path is not
// found.
func fontMounts(cfg Config) wazero.FSConfig {
	folders := cfg.Fonts
	if cfg.FontDirs != nil || folders == nil {
		dirs := cfg.FontDirs
		if dirs == nil {
			dirs = SystemFontDirs
		}
		folders = nil
		for _, d := range dirs {
			folders = append(folders, pdfproto.FontFolder{Guest: d, Host: d})
		}
	}
	return wazero.NewFSConfig().WithFSMount(newFontFS(folders), "/")
}

// fontFS shows the folders of fonts and nothing else of the host's file
// system: a name under one of them (at its guest path) is opened in it
// (read-only: an fs.FS has no writes), any other is not there.
type fontFS struct {
	dirs  []string // the guest paths, without their leading "/"
	hosts []fs.FS  // the folder each is
}

func newFontFS(folders []pdfproto.FontFolder) fontFS {
	var f fontFS
	for _, m := range folders {
		d := strings.TrimPrefix(path.Clean("/"+filepath.ToSlash(m.Guest)), "/")
		if fs.ValidPath(d) && d != "." && m.Host != "" {
			f.dirs = append(f.dirs, d)
			f.hosts = append(f.hosts, os.DirFS(m.Host))
		}
	}
	return f
}

func (f fontFS) Open(name string) (fs.File, error) {
	if fs.ValidPath(name) {
		for i, d := range f.dirs {
			if name == d {
				return f.hosts[i].Open(".")
			}
			if rest, ok := strings.CutPrefix(name, d+"/"); ok {
				return f.hosts[i].Open(rest)
			}
		}
	}
	if ways := f.waysDown(name); len(ways) > 0 {
		// A folder on the way to one ("." or "usr/share"): it holds
		// only the way down.
		return &wayDir{name: name, ways: ways}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// waysDown are the names within folder name that lead to a folder of
// fonts that exists, when name is above one.
func (f fontFS) waysDown(name string) []fs.DirEntry {
	var ways []fs.DirEntry
	seen := map[string]bool{}
	for i, d := range f.dirs {
		rest, ok := d, name == "."
		if !ok {
			rest, ok = strings.CutPrefix(d, name+"/")
		}
		if !ok {
			continue
		}
		next, _, _ := strings.Cut(rest, "/")
		p := next
		if name != "." {
			p = name + "/" + next
		}
		if seen[next] {
			continue
		}
		if fi, err := fs.Stat(f.hosts[i], "."); err != nil || !fi.IsDir() {
			continue
		}
		seen[next] = true
		ways = append(ways, fs.FileInfoToDirEntry(dirInfo(path.Base(p))))
	}
	return ways
}

// wayDir is a folder above the fonts, listing only the way to them.
type wayDir struct {
	name string
	ways []fs.DirEntry
	read bool
}

func (d *wayDir) Stat() (fs.FileInfo, error) { return dirInfo(path.Base(d.name)), nil }
func (d *wayDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: fs.ErrInvalid}
}
func (d *wayDir) Close() error { return nil }
func (d *wayDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.read {
		if n > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	d.read = true
	return d.ways, nil
}

// dirInfo is the FileInfo of a folder above the fonts: read-only.
type dirInfo string

func (n dirInfo) Name() string     { return string(n) }
func (dirInfo) Size() int64        { return 0 }
func (dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (dirInfo) ModTime() time.Time { return time.Time{} }
func (dirInfo) IsDir() bool        { return true }
func (dirInfo) Sys() any           { return nil }

// Renderer is one started PDFium instance.
type Renderer struct {
	pool pdfium.Pool
	inst pdfium.Pdfium
}

// Start compiles (or loads from the cache folder) and starts PDFium.
func Start(cfg Config) (*Renderer, error) {
	if cfg.MemoryMiB <= 0 {
		return nil, errors.New("no memory limit")
	}
	rc := wazero.NewRuntimeConfig()
	if cfg.CacheDir != "" && privateDir(cfg.CacheDir) {
		// Compiled once, then loaded: seconds and a few hundred MB of
		// compiling saved on every later start.
		if cache, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir); err == nil {
			rc = rc.WithCompilationCache(cache)
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle: 1, MaxIdle: 1, MaxTotal: 1,
		RuntimeConfig: rc.
			// PDFium's setjmp/longjmp are WebAssembly exceptions.
			WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
			WithMemoryLimitPages(uint32(cfg.MemoryMiB) * 16), // 64 KiB pages
		// No file system but the system's font folders, read-only: the
		// document is handed over as bytes.
		FSConfig: fontMounts(cfg),
		Stdout:   io.Discard, Stderr: io.Discard,
	})
	if err != nil {
		return nil, err
	}
	inst, err := pool.GetInstance(time.Minute)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &Renderer{pool: pool, inst: inst}, nil
}

// Close ends the renderer.
func (r *Renderer) Close() {
	r.inst.Close()
	r.pool.Close()
}

// refusal is a kind of pdfproto's, for a document the renderer refuses.
type refusal string

func (k refusal) Error() string { return string(k) }

func (r *Renderer) open(data []byte) (references.FPDF_DOCUMENT, func(), error) {
	doc, err := r.inst.OpenDocument(&requests.OpenDocument{File: &data})
	if errors.Is(err, pdfiumerrors.ErrPassword) || errors.Is(err, pdfiumerrors.ErrSecurity) {
		// Sound, but locked: a password to open it (or a security
		// handler PDFium does not have). Not damage.
		return "", nil, refusal(pdfproto.KindPassword)
	}
	if err != nil {
		return "", nil, refusal(pdfproto.KindUnopenable)
	}
	return doc.Document, func() { r.inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document}) }, nil
}

// Pages counts a PDF's pages; a PDF with none is refused.
func (r *Renderer) Pages(data []byte) (int, error) {
	doc, closeDoc, err := r.open(data)
	if err != nil {
		return 0, err
	}
	defer closeDoc()
	c, err := r.inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
	if err != nil || c.PageCount < 1 {
		return 0, refusal(pdfproto.KindNoPages)
	}
	return c.PageCount, nil
}

// Page draws page i at 150 dpi, smaller when that would exceed maxPixels
// or MaxSide pixels a side, and says whether its text uses a font the PDF
// does not embed (drawn in one of the system's fonts instead).
func (r *Renderer) Page(data []byte, i int, maxPixels int64) (*image.RGBA, bool, error) {
	doc, closeDoc, err := r.open(data)
	if err != nil {
		return nil, false, err
	}
	defer closeDoc()
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}
	size, err := r.inst.GetPageSize(&requests.GetPageSize{Page: page})
	if err != nil || !(size.Width > 0) || !(size.Height > 0) || math.IsInf(size.Width, 0) || math.IsInf(size.Height, 0) {
		return nil, false, refusal(pdfproto.KindNoSize)
	}
	pw, ph := PixelSize(size.Width, size.Height, maxPixels)
	// What the customer filled in and stamped is drawn as poppler and
	// mutool draw it: annotations (stamps, notes, highlights, with their
	// appearance) only when asked (FPDF_ANNOT), and form fields through
	// PDFium's form-fill environment (FPDF_FFLDraw), which also makes the
	// appearance of a field whose file has none (NeedAppearances).
	res, err := r.inst.RenderPageInPixels(&requests.RenderPageInPixels{
		Page: page, Width: pw, Height: ph,
		RenderFlags: enums.FPDF_RENDER_FLAG_ANNOT,
		RenderForm:  true,
		Document:    &doc,
	})
	if err != nil {
		return nil, false, refusal(pdfproto.KindUndrawable)
	}
	defer res.Cleanup()
	// The default format is RGBA: anything else is not a page drawn as asked.
	img, _ := res.Result.RenderedImage.(*image.RGBA)
	// PDFium rounds the size it was asked for (620 × 874 for 875): no
	// larger, never empty.
	if img == nil {
		return nil, false, refusal(pdfproto.KindUndrawable)
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	if w < 1 || h < 1 || w > pw+1 || h > ph+1 || int64(w)*int64(h) > maxPixels {
		return nil, false, refusal(pdfproto.KindUndrawable)
	}
	// The picture lives in the module's memory until Cleanup: copy it.
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		copy(out.Pix[y*out.Stride:y*out.Stride+w*4], img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y):])
	}
	return out, r.substitutes(page), nil
}

// maxFontChecks bounds the page objects looked at for fonts (a page of
// many thousands of objects is drawn whole; past the bound, the check
// says what it saw).
const maxFontChecks = 100000

// standard14 are the fonts every PDF reader has (PDFium's built-in ones,
// metrically the same): not embedding them is the rule, not a
// substitution.
var standard14 = map[string]bool{
	"Courier": true, "Courier-Bold": true, "Courier-Oblique": true, "Courier-BoldOblique": true,
	"Helvetica": true, "Helvetica-Bold": true, "Helvetica-Oblique": true, "Helvetica-BoldOblique": true,
	"Times-Roman": true, "Times-Bold": true, "Times-Italic": true, "Times-BoldItalic": true,
	"Symbol": true, "ZapfDingbats": true,
}

// substitutes reports whether a text object of the page (or of a form
// XObject in it) uses a font the PDF does not embed, other than the
// standard 14: its text was drawn in a font of the system's, or in
// PDFium's own, not the one the document names.
func (r *Renderer) substitutes(page requests.Page) bool {
	budget := maxFontChecks
	var walk func(n int, get func(int) (references.FPDF_PAGEOBJECT, bool), depth int) bool
	walk = func(n int, get func(int) (references.FPDF_PAGEOBJECT, bool), depth int) bool {
		for k := 0; k < n && budget > 0; k++ {
			budget--
			obj, ok := get(k)
			if !ok {
				continue
			}
			t, err := r.inst.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: obj})
			if err != nil {
				continue
			}
			switch t.Type {
			case enums.FPDF_PAGEOBJ_TEXT:
				f, err := r.inst.FPDFTextObj_GetFont(&requests.FPDFTextObj_GetFont{PageObject: obj})
				if err != nil {
					continue
				}
				e, err := r.inst.FPDFFont_GetIsEmbedded(&requests.FPDFFont_GetIsEmbedded{Font: f.Font})
				if err != nil || e.IsEmbedded {
					continue
				}
				name, err := r.inst.FPDFFont_GetBaseFontName(&requests.FPDFFont_GetBaseFontName{Font: f.Font})
				if err != nil || !standard14[name.BaseFontName] {
					return true
				}
			case enums.FPDF_PAGEOBJ_FORM:
				if depth >= 8 {
					continue
				}
				c, err := r.inst.FPDFFormObj_CountObjects(&requests.FPDFFormObj_CountObjects{PageObject: obj})
				if err != nil {
					continue
				}
				if walk(c.Count, func(k int) (references.FPDF_PAGEOBJECT, bool) {
					o, err := r.inst.FPDFFormObj_GetObject(&requests.FPDFFormObj_GetObject{PageObject: obj, Index: uint64(k)})
					if err != nil {
						return "", false
					}
					return o.PageObject, true
				}, depth+1) {
					return true
				}
			}
		}
		return false
	}
	c, err := r.inst.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: page})
	if err != nil {
		return false
	}
	return walk(c.Count, func(k int) (references.FPDF_PAGEOBJECT, bool) {
		o, err := r.inst.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: page, Index: k})
		if err != nil {
			return "", false
		}
		return o.PageObject, true
	}, 0)
}

// PixelSize is a page of w × h points drawn at DPI, scaled down to within
// maxPixels and MaxSide a side.
func PixelSize(w, h float64, maxPixels int64) (int, int) {
	w, h = w*DPI/72, h*DPI/72 // points to pixels
	scale := 1.0
	if px := w * h; px > float64(maxPixels) {
		scale = math.Sqrt(float64(maxPixels) / px)
	}
	scale = math.Min(scale, math.Min(MaxSide/w, MaxSide/h))
	return max(1, int(w*scale)), max(1, int(h*scale))
}

// Serve answers requests from in on out until in ends (the console is
// gone or done with the renderer). Each request's PDF is read whole into
// memory (at most pdfproto.MaxInput bytes) and dropped after the answer;
// nothing is written anywhere but out. A request that is not of the
// protocol ends the service with an error: the console starts a fresh
// renderer.
func Serve(r *Renderer, in io.Reader, out io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	bw := bufio.NewWriterSize(out, 256<<10)
	if _, err := fmt.Fprintln(bw, pdfproto.Ready); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	for {
		line, err := pdfproto.ReadLine(br)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var data []byte
		var f []int64
		if f, err = pdfproto.Fields(line, "pages", 1, math.MaxInt32); err == nil {
			if data, err = body(br, bw, f[0]); err != nil {
				return err
			}
			if data != nil {
				n, err := r.Pages(data)
				answer(bw, err, func() { fmt.Fprintf(bw, "pages %d\n", n) })
			}
		} else if f, err = pdfproto.Fields(line, "page", 3, math.MaxInt64); err == nil {
			if data, err = body(br, bw, f[2]); err != nil {
				return err
			}
			if data != nil {
				if f[0] > math.MaxInt32 || f[1] < 1 {
					answer(bw, refusal(pdfproto.KindBadRequest), nil)
				} else {
					img, subst, err := r.Page(data, int(f[0]), f[1])
					answer(bw, err, func() {
						b := img.Bounds()
						fonts := 0
						if subst {
							fonts = 1
						}
						fmt.Fprintf(bw, "page %d %d %d\n", b.Dx(), b.Dy(), fonts)
						bw.Write(img.Pix)
					})
				}
			}
		} else {
			fmt.Fprintf(bw, "error %s\n", pdfproto.KindBadRequest)
			bw.Flush()
			return fmt.Errorf("not a request of the protocol")
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// body reads a request's n bytes of PDF; over the limit, it reads and drops
// them, answers the refusal and returns nil.
func body(br *bufio.Reader, bw *bufio.Writer, n int64) ([]byte, error) {
	if n > pdfproto.MaxInput {
		if _, err := io.CopyN(io.Discard, br, n); err != nil {
			return nil, err
		}
		fmt.Fprintf(bw, "error %s\n", pdfproto.KindTooLarge)
		return nil, nil
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, err
	}
	return data, nil
}

func answer(bw *bufio.Writer, err error, ok func()) {
	var k refusal
	switch {
	case err == nil:
		ok()
	case errors.As(err, &k):
		fmt.Fprintf(bw, "error %s\n", string(k))
	default:
		fmt.Fprintf(bw, "error %s\n", pdfproto.KindUndrawable)
	}
}

// CacheUsable reports whether dir is a cache folder the renderer uses:
// one only this user may write to.
func CacheUsable(dir string) bool { return privateDir(dir) }

// privateDir makes dir (0700) and reports whether only this user may write
// to it: the renderer runs the machine code it finds there.
func privateDir(dir string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir() && fi.Mode().Perm()&0o022 == 0
}
