package store

import (
	"encoding/json"
	"testing"
)

func TestLayersJSONIsJSONMarshal(t *testing.T) {
	for _, l := range []map[string]float64{
		{"ela": 0.4}, {"metadata": 0.16, "ela": 0.32, "ai_generation": 0.4, "face_match": 0.6},
		{"a": 0, "b": 1, "c": 0.1 + 0.2, "d": 1.0 / 3}, {"tiny": 1e-7, "x": 0.5}, {"huge": 1e22},
		{"<script>": 0.5}, {"ключ": 0.5}, {`quo"te`: 0.2}, {"neg": -0.25}, {"": 0.3},
		{"k1": 0.1, "k2": 0.2, "k3": 0.3, "k4": 0.4, "k5": 0.5, "k6": 0.6, "k7": 0.7, "k8": 0.8, "k9": 0.9},
	} {
		want, _ := json.Marshal(l)
		if got := layersJSON(l); got != string(want) {
			t.Errorf("layersJSON(%v) = %s, want %s", l, got, want)
		}
	}
}
