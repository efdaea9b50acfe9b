package document

import (
	"context"
	"testing"
)

// A lossy WebP (libwebp's own examples/test.webp) is shown in the colours
// libwebp draws it in: held to dwebp's decode (Debian's webp 1.2.4, its
// default fancy upsampling), where the standard conversion (JFIF's full
// range) was 29.6 dB from it.
// The same for one with an alpha plane (made with cwebp from the upright
// photo and a gradient of transparency).
func TestALossyWebPHasLibwebpsColours(t *testing.T) {
	for _, name := range []string{"libwebp-test", "lossy-alpha"} {
		d, err := Open(context.Background(), WebP, readSample(t, "images/"+name+".webp"), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		page, err := d.Page(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		p := psnr(t, toRGBA(page), readPNG(t, "images/"+name+".dwebp.png"))
		t.Logf("%s: %.1f dB from dwebp's decode", name, p)
		if p < 45 {
			t.Fatalf("%s: %.1f dB from dwebp's decode", name, p)
		}
	}
}
