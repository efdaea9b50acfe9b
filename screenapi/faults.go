package screenapi

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// FaultKind is a way the service (or a proxy in front of it) misbehaves.
type FaultKind string

const (
	FaultHang        FaultKind = "hang"                   // read the request, then never answer
	FaultReset       FaultKind = "reset"                  // read the request, then reset the connection
	FaultHangAfter   FaultKind = "hang_after_processing"  // do the work, then never answer
	FaultResetAfter  FaultKind = "reset_after_processing" // do the work, then reset the connection
	FaultUnavailable FaultKind = "503_json"               // 503 with the service's JSON error body
	FaultBadGateway  FaultKind = "5xx_bare"               // a proxy's 5xx with an HTML body and no code
	FaultRateLimit   FaultKind = "429"                    // 429 with Retry-After
	FaultMalformed   FaultKind = "malformed_json"         // 200 with a body that is not JSON
	FaultTruncated   FaultKind = "truncated"              // 200 whose body stops half-way
	FaultOversized   FaultKind = "oversized"              // 200 with a body over 8 MiB
	FaultBrokenItem  FaultKind = "broken_item"            // 200 with an item that breaks the invariants
	FaultHTMLPage    FaultKind = "html_200"               // 200 with an HTML page (a captive portal, a misrouted proxy)
	FaultEmpty       FaultKind = "empty_200"              // 200 with an empty body
)

// FaultKinds lists every fault, for the demo's command line.
func FaultKinds() []FaultKind {
	return []FaultKind{FaultHang, FaultReset, FaultHangAfter, FaultResetAfter, FaultUnavailable,
		FaultBadGateway, FaultRateLimit, FaultMalformed, FaultTruncated, FaultOversized, FaultBrokenItem, FaultHTMLPage, FaultEmpty, FaultWrongType}
}

// Fault is a switched-on fault.
type Fault struct {
	Kind       FaultKind
	Endpoint   string // "" for every endpoint
	Times      int    // how many requests it hits; 0 until cleared
	Status     int    // for FaultBadGateway: 502 (default), 503 or 504
	RetryAfter string // for FaultRateLimit and FaultUnavailable (default "2")
	Announce   bool   // for FaultOversized: send Content-Length (else the body is chunked)
}

func (k FaultKind) afterProcessing() bool { return k == FaultHangAfter || k == FaultResetAfter }

// SetFault switches a fault on.
func (s *Server) SetFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// ClearFaults switches every fault off.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

func (s *Server) takeFault(ep string, after bool) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if (f.Endpoint != "" && f.Endpoint != ep) || f.Kind.afterProcessing() != after {
			continue
		}
		if f.Times > 0 {
			f.Times--
			if f.Times == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		c := *f
		return &c
	}
	return nil
}

// applyFault answers (or does not) as the fault says. It reports whether
// it took over the response.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	retryAfter := f.RetryAfter
	if retryAfter == "" {
		retryAfter = "2"
	}
	switch f.Kind {
	case FaultHang, FaultHangAfter:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
	case FaultReset, FaultResetAfter:
		reset(w)
	case FaultUnavailable:
		w.Header().Set("Retry-After", retryAfter)
		writeAnswer(w, errAnswer(503, "SERVICE_UNAVAILABLE", "the service is overloaded"))
	case FaultBadGateway:
		status := f.Status
		if status == 0 {
			status = 502
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1>nginx</body></html>", status, http.StatusText(status))
	case FaultRateLimit:
		w.Header().Set("Retry-After", retryAfter)
		writeAnswer(w, errAnswer(429, "RATE_LIMITED", "too many requests"))
	case FaultMalformed:
		writeAnswer(w, answer{status: 200, body: []byte(`{"batches": [{"id": "bat_x", "items": [{"id": `)})
	case FaultTruncated:
		hj, ok := w.(http.Hijacker)
		if !ok {
			return false
		}
		conn, buf, err := hj.Hijack()
		if err != nil {
			return true
		}
		body := `{"batches": [], "next_cursor": null, "padding": "` + strings.Repeat("x", 2000) + `"}`
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:len(body)/2])
		buf.Flush()
		conn.Close()
	case FaultOversized:
		body := `{"batches": [], "next_cursor": null, "id": "itm_x", "padding": "` + strings.Repeat("x", 9<<20) + `"}`
		if f.Announce {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		writeAnswer(w, answer{status: 200, body: []byte(body)})
	case FaultHTMLPage:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Sign in to the network</h1></body></html>")
	case FaultEmpty:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
	case FaultBrokenItem:
		writeAnswer(w, answer{status: 200, body: []byte(`{"id": "` + r.PathValue("id") + `", "batch_id": "bat_x", "status": "error", "error_code": "CLASSIFIER_TIMEOUT", "risk_score": 12, "recommendation": "forward", "batches": [{"id": "bat_broken", "items": [{"id": "itm_broken", "batch_id": "bat_broken", "status": "scored", "risk_score": 140, "recommendation": "forward"}]}], "next_cursor": null}`)})
	default:
		return false
	}
	return true
}

// reset closes the connection with a TCP RST.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	raw := conn
	if tc, ok := conn.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	conn.Close()
}
