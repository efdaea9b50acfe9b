package jpegscale

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A progressive photo's first view at 1/8 is drawn from its first scans:
// a component reduced to its DC term gains nothing from the AC scans, so
// they are passed over, not decoded, and the picture is the one the whole
// decode at 1/8 gives, pixel for pixel. The file is libjpeg-turbo's
// testorig.jpg made progressive by jpegtran (its default script: ten
// scans, four of them the luma's AC).
func TestAProgressiveFirstViewAtAnEighthPassesOverItsACScans(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "document", "testdata", "images", "testorig-progressive.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	var skipped, scans int
	testHookSkipped = func(s, n int) { skipped, scans = s, n }
	defer func() { testHookSkipped = nil }()

	got, err := DecodeScaled(bytes.NewReader(b), 8)
	if err != nil {
		t.Fatal(err)
	}
	if scans != 10 || skipped != 4 {
		t.Fatalf("%d of %d scans passed over, want the luma's 4 AC scans of 10", skipped, scans)
	}
	skipUnneededScans = false
	want, err := DecodeScaled(bytes.NewReader(b), 8)
	skipUnneededScans = true
	if err != nil || skipped != 0 {
		t.Fatalf("%v, %d skipped", err, skipped)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the first view differs from the whole decode at 1/8")
	}
	// At 1/4 and full size every scan is decoded.
	for _, denom := range []int{1, 2, 4} {
		if _, err := DecodeScaled(bytes.NewReader(b), denom); err != nil || skipped != 0 {
			t.Fatalf("1/%d: %v, %d skipped", denom, err, skipped)
		}
	}
	// A truncated file is still refused at 1/8: the skipped scans' bytes
	// are read to the end.
	if _, err := DecodeScaled(bytes.NewReader(b[:len(b)-600]), 8); err == nil {
		t.Fatal("a truncated progressive file decoded at 1/8")
	}
}
