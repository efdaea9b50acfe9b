package cli

import (
	"errors"
	"fmt"
	"github.com/trustscreen/reviewer/internal/document"
	"io"
	"strconv"
	"strings"

	"github.com/trustscreen/reviewer/internal/safefile"
	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// `reviewer file ID [--version N] --out FILE [--force]`: write a version of
// an item's document (the newest by default) to a new file. The bytes are
// a customer's identity document: the file is written 0600, through a
// temporary file in the same folder renamed into place; an existing file
// is kept unless --force; a symbolic link, a named pipe or a device is
// refused always; nothing is left behind when it fails. Offline, it
// answers from a copy kept for offline review (kept.go), or refuses in one
// line. Against a 1.0 service it says
// that the service does not offer documents.

// Ranges of REVIEWER_DOCUMENT_CACHE: room for one whole document, up to 4 GiB.
const (
	minDocumentCache = policy.MaxFileSize
	maxDocumentCache = 4 << 30
)

// documentCacheFromEnv reads REVIEWER_DOCUMENT_CACHE (bytes), and the
// limits of decoding a document (REVIEWER_MAX_MEGAPIXELS, REVIEWER_PDF_*).
func (g *globals) documentCacheFromEnv(lookup func(string) (string, bool)) error {
	g.docCache = review.DefaultDocumentCache
	lim, err := document.LimitsFrom(lookup)
	if err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "%v", err)
	}
	g.docLimits = lim
	v, ok := lookup("REVIEWER_DOCUMENT_CACHE")
	if !ok || v == "" {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_DOCUMENT_CACHE=%q is not a whole number of bytes such as 134217728", v)
	}
	if n < minDocumentCache || n > maxDocumentCache {
		return policy.Errorf(policy.CodeInvalidInput, "REVIEWER_DOCUMENT_CACHE %d: want %d (10 MiB) to %d (4 GiB) bytes", n, minDocumentCache, maxDocumentCache)
	}
	g.docCache = n
	return nil
}

func (r *runner) file(args []string) (int, error) {
	fs := r.flags("file")
	version := fs.Int("version", 0, "the file version (1 is the first; default: the newest)")
	out := fs.String("out", "", "the file to write (a new file, mode 0600)")
	force := fs.Bool("force", false, "replace the file if it exists")
	pos, err := r.parse(fs, args, 1)
	if err != nil {
		return ExitUsage, err
	}
	if *out == "" {
		return ExitUsage, usagef("file needs --out FILE")
	}
	if *version < 0 {
		return ExitUsage, usagef("file --version %d: the first version is 1", *version)
	}
	// Refused before any call: a FIFO would block, a link would be
	// followed, an existing file would be lost.
	if err := safefile.CheckTarget(*out, *force); err != nil {
		var folder *safefile.FolderError
		if errors.As(err, &folder) {
			return ExitUsage, usagef("file --out %s: %v", *out, err)
		}
		return ExitRefused, exportError(err)
	}
	svc, ctx, done, err := r.session()
	if err != nil {
		return exitFor(err), err
	}
	defer done()
	doc, err := svc.Documents.Document(ctx, pos[0], *version)
	if err != nil {
		return documentFailed(err, "reviewer file "+strings.Join(args, " "))
	}
	err = safefile.WriteNew(*out, *force, func(w io.Writer) error {
		_, err := w.Write(doc.Data)
		return err
	})
	if err != nil {
		if code := exitFor(exportError(err)); code == ExitRefused {
			return code, exportError(err)
		}
		return ExitFailure, fmt.Errorf("file: nothing written to %s: %w", *out, err)
	}
	fmt.Fprintf(r.env.Stdout, "wrote version %d of %s (%s, %s) to %s\n", doc.Version, show(pos[0]), doc.MediaType,
		safefile.Size(int64(len(doc.Data))), show(*out))
	return ExitOK, nil
}

// documentFailed is the exit of a document that could not be had. Offline
// or damaged, it is a read that failed (7: nothing is queued; run it
// again); a service that offers no documents refuses (3).
func documentFailed(err error, again string) (int, error) {
	d, ok := review.AsDocumentError(err)
	if !ok {
		return exitFor(err), err
	}
	// The line leads with the code, then the plain words, as every other
	// refusal (a cause from the API would otherwise take the code's place).
	coded := fmt.Errorf("%s: %w", policy.ErrorCode(err), err)
	switch d.Problem {
	case review.DocNotOffered:
		return ExitRefused, err
	case review.DocDamaged:
		return ExitReadFailed, readError{err: err, again: again}
	case review.DocOffline:
		return ExitReadFailed, readError{err: coded, again: again}
	}
	return exitFor(err), coded
}
