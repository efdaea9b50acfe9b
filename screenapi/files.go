package screenapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/trustscreen/reviewer/policy"
)

// Contract version 1.1: the document itself, GET /v1/items/{id}/files/{version}.
// A seeded version's bytes are drawn when first asked for (documents.go); a
// replacement's are what was uploaded. The fault switches apply as on every
// endpoint; three of them act on the file's own bytes here: a truncated
// body, a body over 10 MiB, and a Content-Type that lies about the bytes.

// FaultWrongType answers a file with a Content-Type that is not what its
// bytes are (a JPEG declared as a PNG, anything else as a JPEG).
const FaultWrongType FaultKind = "wrong_type"

// onFileBody reports whether the fault acts on the bytes of a file's answer.
func (k FaultKind) onFileBody() bool {
	return k == FaultTruncated || k == FaultOversized || k == FaultWrongType
}

func (s *Server) fileRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/items/{id}/files/{version}", s.wrap(EPFile, s.only11(s.getFile)))
}

// HoldFile makes every answer with one of the item's files wait until the
// returned release is called (or the server closes): a test can keep a
// download in flight for exactly as long as it needs, with no timer.
func (s *Server) HoldFile(itemID string) (release func()) {
	return s.Hold("file:" + itemID)
}

func (s *Server) getFile(r *http.Request) answer {
	id := r.PathValue("id")
	s.mu.Lock()
	hold := s.holds["file:"+id]
	s.mu.Unlock()
	if !s.held(hold) {
		return shuttingDown()
	}
	v, err := strconv.Atoi(r.PathValue("version"))
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.team[id]
	if _, ok := s.items[id]; !ok || t == nil {
		return errAnswer(404, policy.CodeNotFound, "no such item")
	}
	if err != nil || v < 1 || v > len(t.files) {
		return errAnswer(404, policy.CodeNotFound, "the item has no such file version")
	}
	fv := &t.files[v-1]
	if fv.data == nil {
		fv.data = document(id, fv.FileName, fv.MediaType)
	}
	mt := fv.MediaType
	if mt == "" {
		mt = "application/octet-stream"
	}
	h := http.Header{}
	h.Set("Content-Type", mt)
	h.Set("Content-Length", strconv.Itoa(len(fv.data)))
	h.Set("ETag", etag(fv.data))
	return answer{status: http.StatusOK, header: h, body: fv.data}
}

// File returns the bytes of an item's file version and its media type, as
// the service serves them.
func (s *Server) File(itemID string, version int) ([]byte, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.team[itemID]
	if t == nil || version < 1 || version > len(t.files) {
		return nil, "", false
	}
	fv := &t.files[version-1]
	if fv.data == nil {
		fv.data = document(itemID, fv.FileName, fv.MediaType)
	}
	return append([]byte(nil), fv.data...), fv.MediaType, true
}

// fileFault answers a file with one of the faults that act on its bytes.
func fileFault(w http.ResponseWriter, a answer, f *Fault) {
	switch f.Kind {
	case FaultTruncated:
		// The whole length announced, half the bytes sent, the connection closed.
		hj, ok := w.(http.Hijacker)
		if !ok {
			return
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return
		}
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", a.header.Get("Content-Type"), len(a.body))
		buf.Write(a.body[:len(a.body)/2])
		buf.Flush()
		conn.Close()
	case FaultOversized:
		// The file, then padding, to 1 MiB over the contract's limit.
		body := make([]byte, MaxFileSize+1<<20)
		copy(body, a.body)
		w.Header().Set("Content-Type", a.header.Get("Content-Type"))
		if f.Announce {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	case FaultWrongType:
		h := a.header.Clone()
		if strings.HasPrefix(h.Get("Content-Type"), "image/jpeg") {
			h.Set("Content-Type", "image/png")
		} else {
			h.Set("Content-Type", "image/jpeg")
		}
		writeAnswer(w, answer{status: a.status, header: h, body: a.body})
	}
}
