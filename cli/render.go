package cli

import (
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"strings"

	"github.com/trustscreen/reviewer/internal/document"
	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/policy"
)

// `reviewer render FILE --out PNG [--full] [--page N] [--force]`: draw a
// local file exactly as the viewer does, with the same checks and the same
// words when it refuses (exit 3): the first view (the page fitted to the
// viewer's first size, a large JPEG decoded reduced), or the full size
// with --full; a PDF's page N. It is how a reviewer saves what she saw for
// a case file, and how tests hold the viewer to real files. The PNG is
// written 0600 as `file` writes, an existing one kept unless --force.
func (r *runner) render(args []string) (int, error) {
	fs := r.flags("render")
	out := fs.String("out", "", "the PNG to write (a new file, mode 0600)")
	full := fs.Bool("full", false, "draw the page at full size, not the viewer's first view")
	page := fs.Int("page", 1, "the page of a PDF (1 is the first)")
	force := fs.Bool("force", false, "replace the PNG if it exists")
	pos, err := r.parse(fs, args, 1)
	if err != nil {
		return ExitUsage, err
	}
	if *out == "" {
		return ExitUsage, usagef("render needs --out FILE.png")
	}
	if *page < 1 {
		return ExitUsage, usagef("render --page %d: the first page is 1", *page)
	}
	if err := safefile.CheckTarget(*out, *force); err != nil {
		var folder *safefile.FolderError
		if errors.As(err, &folder) {
			return ExitUsage, usagef("render --out %s: %v", *out, err)
		}
		return ExitRefused, exportError(err)
	}
	// Read within the console's limit: a larger file is refused in the
	// viewer's words, having read no more than one byte past it.
	data, err := safefile.ReadFile(pos[0], policy.MaxFileSize)
	var tooLarge *safefile.TooLargeError
	if errors.As(err, &tooLarge) {
		return renderFailed(document.ErrFileTooLarge)
	}
	if err != nil {
		return ExitUsage, usagef("render %s: %v", pos[0], err)
	}
	// A local file declares nothing: its type is what its first bytes say,
	// and the checks are the viewer's from there.
	declared := document.Sniff(data)
	if declared == "" && len(data) > 0 {
		return renderFailed(document.ErrUnrecognised)
	}
	if declared == "" {
		declared = document.JPEG // empty: refused as the viewer does
	}
	ctx, cancel := signalContext()
	defer cancel()
	w, h := document.ViewerWidth, document.ViewerHeight
	if *full {
		w, h = 0, 0 // opened whole, as the viewer's full size
	}
	doc, err := document.OpenView(ctx, declared, data, r.g.docLimits, w, h)
	if err != nil {
		return renderFailed(err)
	}
	if *page > doc.Pages {
		return ExitUsage, usagef("render --page %d: %s has %d page(s)", *page, show(pos[0]), doc.Pages)
	}
	var img image.Image
	if *full {
		img, err = doc.Page(ctx, *page-1)
	} else {
		_, _, img, err = doc.FirstView(ctx, *page-1, w, h)
	}
	if err != nil {
		return renderFailed(err)
	}
	err = safefile.WriteNew(*out, *force, func(w io.Writer) error {
		return png.Encode(w, img)
	})
	if err != nil {
		if code := exitFor(exportError(err)); code == ExitRefused {
			return code, exportError(err)
		}
		return ExitFailure, fmt.Errorf("render: nothing written to %s: %w", *out, err)
	}
	b := img.Bounds()
	var what strings.Builder
	fmt.Fprintf(&what, "wrote page %d of %d of %s (%s) to %s: %d × %d", *page, doc.Pages, show(pos[0]), doc.MediaType, show(*out), b.Dx(), b.Dy())
	if !*full {
		what.WriteString(", the viewer's first view")
	}
	if o := doc.Orientation(); o > 1 {
		what.WriteString("; shown upright as the photo's EXIF orientation asks (" + document.OrientationWords(o) + "); the file itself is unchanged")
	}
	if doc.FontsSubstituted(*page - 1) {
		what.WriteString("; " + document.FontsSubstitutedWords)
	}
	fmt.Fprintln(r.env.Stdout, what.String())
	return ExitOK, nil
}

// renderFailed is the exit of a document the viewer would not show: its
// refusal, in the viewer's words, is exit 3; an interruption or a failure
// of the console itself is 1.
func renderFailed(err error) (int, error) {
	if _, ok := document.AsError(err); ok {
		return ExitRefused, err
	}
	return ExitFailure, err
}
