package cli

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestAppendIndentIsJSONIndent(t *testing.T) {
	for _, v := range []any{
		[]any{}, map[string]any{}, []any{[]any{}, map[string]any{}}, "plain",
		map[string]any{"a": []any{1, 2.5, "x"}, "b": map[string]any{"c": nil, "d": true}},
		map[string]any{`q"u{o}t[e],:`: `va\lue "with" {brackets}, [commas]: and \\`, "e": []any{map[string]any{}}},
		map[string]any{"html": "<b>&</b>", "ctl": "\x01\t\n", "uni": "ключ \u2028"},
		itemJSON{ID: "itm_1", Layers: map[string]float64{"ela": 0.4}, OpenAction: &openActionJSON{Kind: "resubmit"}},
	} {
		compact, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		json.Indent(&want, compact, "  ", "  ")
		if got := appendIndent(nil, compact, "  ", "  "); string(got) != want.String() {
			t.Errorf("%s\ngot:\n%s\nwant:\n%s", compact, got, want.String())
		}
	}
}
