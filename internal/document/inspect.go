package document

import (
	"context"
	"errors"
)

// Inspect runs on a file a reviewer is about to upload the checks the
// viewer runs before it shows one: the type from the bytes, the pixel
// bound, a decode of the whole picture (a JPEG at its smallest reduction,
// which still reads every byte of its scans), or, for a PDF, an open in the
// renderer with its page count and a drawing of its first page. It returns
// the media type, or the viewer's own refusal: a file the viewer would call
// damaged or refuse is one the service would be paid to analyse for
// nothing (rule 8).
//
// Not every refusal is the file's fault: CannotCheck tells a file the
// console could not judge (a kind of JPEG its decoder does not read, no PDF
// renderer, the renderer's time or memory) from one it judged bad. A
// cancelled ctx returns ctx's error.
func Inspect(ctx context.Context, data []byte, lim Limits) (string, error) {
	lim = lim.withDefaults()
	t := Sniff(data)
	if t == "" {
		return "", failf(KindMismatch, "Refused: the file is not a JPEG, PNG, WebP or PDF.")
	}
	if _, err := Check(t, data); err != nil {
		return "", err
	}
	if t == PDF {
		n, err := pdfPages(ctx, data, lim)
		if err == nil && n > 0 {
			_, _, err = pdfPage(ctx, data, 0, lim)
		}
		return t, inspected(ctx, err)
	}
	// A 1 × 1 view: the largest reduction the picture allows.
	_, _, _, _, _, err := decodeImage(ctx, t, data, lim, 1, 1, nil)
	return t, inspected(ctx, err)
}

// inspected keeps the caller's own cancellation apart from the file's
// fault: a decode or a page stopped because the asker left is no verdict.
func inspected(ctx context.Context, err error) error {
	if cerr := ctx.Err(); err != nil && cerr != nil {
		return cerr
	}
	return err
}

// CannotCheck reports whether err says only that the console could not
// judge the file (its own limits), not that the file is bad: such a file
// may still be sound, and the service may read it.
func CannotCheck(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Kind {
	case KindUnsupported, KindTimeout, KindRenderer, KindNoRenderer:
		return true
	}
	return false
}
