package client

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"
)

type redactNode struct {
	Name  string
	Score *float64
	Next  *redactNode
	Tags  map[string]*float64
	Any   map[string]any
	List  []any
}

// Every kind of place a decoded answer keeps a string loses the token:
// fields, a recursive type, map keys, interface values; many goroutines at
// once (the type cache must never let one of them skip a value).
func TestRedactValueReachesEveryString(t *testing.T) {
	const tok = "tok-0123456789abcdef"
	mk := func() *redactNode {
		one := 1.0
		return &redactNode{Name: "a " + tok, Score: &one, Next: &redactNode{Name: tok + ".", Next: &redactNode{Name: "(" + tok + ")"}},
			Tags: map[string]*float64{tok: &one, "x": nil},
			Any:  map[string]any{"k": "v " + tok, tok: []any{tok, 2.0, map[string]any{"d": tok}}},
			List: []any{"x" + tok, tok}}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := mk()
			redactValue(n, Secret(tok))
			if n.Name != "a [redacted]" || n.Next.Name != "[redacted]." || n.Next.Next.Name != "([redacted])" {
				t.Errorf("names %q %q %q", n.Name, n.Next.Name, n.Next.Next.Name)
			}
			if _, ok := n.Tags["[redacted]"]; !ok || len(n.Tags) != 2 || *n.Score != 1 {
				t.Errorf("tags %v", n.Tags)
			}
			l, _ := n.Any["[redacted]"].([]any)
			if n.Any["k"] != "v [redacted]" || len(l) != 3 || l[0] != "[redacted]" || l[1] != 2.0 || l[2].(map[string]any)["d"] != "[redacted]" {
				t.Errorf("any %#v", n.Any)
			}
			// "x"+tok: a token of the accepted length is the token even
			// glued to a letter.
			if n.List[0] != "x[redacted]" || n.List[1] != "[redacted]" {
				t.Errorf("list %#v", n.List)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkRedactPage is the cost of redaction on a decoded page of 1,000
// items, next to decoding it.
func BenchmarkRedactPage(b *testing.B) {
	now := time.Now().UTC()
	var items []map[string]any
	for i := 0; i < 1000; i++ {
		items = append(items, map[string]any{"id": fmt.Sprintf("itm_%d", i), "batch_id": "bat_1", "kind": "id_document",
			"file_name": "scan.jpg", "media_type": "image/jpeg", "size_bytes": 10, "status": "error",
			"error_code": "CLASSIFIER_TIMEOUT", "error_message": "the classifier timed out after 10 s", "attempt": 1,
			"updated_at": now, "revision": 2, "status_since": now, "layers": map[string]float64{"a": 1, "b": 2},
			"notes": []map[string]any{{"id": "n1", "author": "ben", "text": "called the customer", "created_at": now}}})
	}
	body, _ := json.Marshal(map[string]any{"batches": []map[string]any{{"id": "bat_1", "customer_ref": "ACME",
		"created_at": now, "updated_at": now, "items": items}}})
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var wp wirePage
			if err := json.Unmarshal(body, &wp); err != nil {
				b.Fatal(err)
			}
		}
	})
	var wp wirePage
	if err := json.Unmarshal(body, &wp); err != nil {
		b.Fatal(err)
	}
	b.Run("redact", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			redactValue(&wp, Secret("tok-0123456789abcdef"))
		}
	})
}
