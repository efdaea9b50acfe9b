package jpegscale

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"testing"
)

// manyScansJPEG is a progressive gray JPEG of w × h whose entropy-coded
// data is n AC scans, each a few bytes: one end-of-band run code after
// another over every block. Each scan costs a pass over all the picture's
// blocks, so a few kilobytes of such scans cost seconds, and the 10 MiB a
// document may weigh, hours.
func manyScansJPEG(w, h, n int) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8})
	b.Write([]byte{0xFF, 0xDB, 0, 67, 0}) // DQT: table 0, all ones
	for range 64 {
		b.WriteByte(1)
	}
	b.Write([]byte{0xFF, 0xC2, 0, 11, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 1, 1, 0x11, 0}) // SOF2, gray
	b.Write([]byte{0xFF, 0xC4, 0, 20, 0x10, 1})                                                        // DHT: AC table 0, one code of 1 bit
	b.Write(make([]byte, 15))
	b.WriteByte(0xE0) // ... for EOB14: a run of 2^14 blocks and more
	blocks := ((w + 7) / 8) * ((h + 7) / 8)
	codes := (blocks + 1<<14 - 1) >> 14
	data := make([]byte, (codes*15+7)/8+1) // zero bits: runs of 2^14 exactly
	for range n {
		b.Write([]byte{0xFF, 0xDA, 0, 8, 1, 1, 0x00, 1, 63, 0}) // SOS: AC 1..63
		b.Write(data)
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

// A JPEG of more scans than any encoder writes is refused before its
// scans are decoded (the standard library decodes every one: minutes of
// a core for a file of a few hundred kilobytes); up to the limit, the
// fork still decodes as the standard library does.
func TestAJPEGOfTooManyScansIsRefused(t *testing.T) {
	ok := manyScansJPEG(64, 48, maxScans)
	sameAsStandard(t, "the most scans", ok)
	if _, err := jpeg.Decode(bytes.NewReader(ok)); err != nil {
		t.Fatalf("the standard library refuses %d scans: %v", maxScans, err)
	}
	over := manyScansJPEG(64, 48, maxScans+1)
	if _, err := jpeg.Decode(bytes.NewReader(over)); err != nil {
		t.Fatalf("the standard library refuses %d scans: %v", maxScans+1, err)
	}
	for _, denom := range []int{1, 2, 4, 8} {
		if _, err := DecodeScaled(bytes.NewReader(over), denom); err != errTooManyScans {
			t.Fatalf("1/%d: %d scans: %v, want %v", denom, maxScans+1, err, errTooManyScans)
		}
	}
	// The header alone is still read.
	if c, err := DecodeConfig(bytes.NewReader(over)); err != nil || c.Width != 64 || c.Height != 48 {
		t.Fatalf("config %+v, %v", c, err)
	}
}

// Within maxScans, a picture of many scans is refused once their blocks
// together pass maxBlockVisits, before the scan that would cross it runs
// (256 empty scans of 7000 x 7000 took 11.5 s); scans that stay under it
// decode. The limit is lowered to the test picture's scale.
func TestAJPEGOfTooMuchWorkIsRefused(t *testing.T) {
	const w, h = 64, 48 // 48 blocks a scan
	was := maxBlockVisits
	t.Cleanup(func() { maxBlockVisits = was })
	maxBlockVisits = 10 * 48
	for _, denom := range []int{1, 8} {
		if _, err := DecodeScaled(bytes.NewReader(manyScansJPEG(w, h, 10)), denom); err != nil {
			t.Fatalf("1/%d: 10 scans of 48 blocks: %v", denom, err)
		}
		if _, err := DecodeScaled(bytes.NewReader(manyScansJPEG(w, h, 11)), denom); err != errTooMuchWork || !IsTooMuchWork(err) {
			t.Fatalf("1/%d: 11 scans of 48 blocks: %v, want %v", denom, err, errTooMuchWork)
		}
	}
	// At its real value it leaves room: a 60-megapixel 4:4:4 photo in
	// libjpeg's progressive script (10 scans) visits each component's
	// blocks about 5 times, some 14 million visits; the limit is more than
	// twice that.
	if visits := 5 * (9000 / 8) * (6667 / 8) * 3; was < 2*visits {
		t.Fatalf("the limit %d leaves a 60-megapixel photo (%d visits) no room", was, visits)
	}
}

// A decode given a context stops between two scans once it ends: a
// reviewer who moves on does not leave a core decoding what she left.
func TestADecodeStopsBetweenScansWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := manyScansJPEG(64, 48, 3)
	if _, err := DecodeScaledContext(ctx, bytes.NewReader(b), 2); err != context.Canceled {
		t.Fatalf("cancelled: %v, want %v", err, context.Canceled)
	}
	if _, err := DecodeScaledContext(context.Background(), bytes.NewReader(b), 2); err != nil {
		t.Fatalf("live: %v", err)
	}
}

// Only a progressive frame is progressive; a baseline photo, a damaged
// header and a cut one are not.
func TestIsProgressive(t *testing.T) {
	var base bytes.Buffer
	if err := jpeg.Encode(&base, image.NewGray(image.Rect(0, 0, 16, 16)), nil); err != nil {
		t.Fatal(err)
	}
	prog := manyScansJPEG(64, 48, 1)
	for _, tc := range []struct {
		name string
		data []byte
		want bool
	}{
		{"baseline", base.Bytes(), false},
		{"progressive", prog, true},
		{"cut in its header", prog[:7], false},
		{"no markers", []byte{0xFF, 0xD8, 1, 2, 3, 4, 5, 6}, false},
	} {
		if got := IsProgressive(bytes.NewReader(tc.data)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
