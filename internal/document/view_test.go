package document

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"math/rand"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// noisyCard is a w × h card with sensor noise, as a JPEG at quality 90.
func noisyCard(t testing.TB, w, h int) []byte {
	m := card(w, h)
	r := rand.New(rand.NewSource(int64(w + h)))
	for i := range m.Pix {
		if i%4 != 3 {
			m.Pix[i] = uint8(min(255, max(0, int(m.Pix[i])+r.Intn(40)-20)))
		}
	}
	return encJPEG(t, m, 90)
}

func TestAReducedFirstViewCoversTheView(t *testing.T) {
	ctx := context.Background()
	data := noisyCard(t, 2000, 1500)
	for _, tc := range []struct {
		viewW, viewH, scale int
	}{
		{400, 300, 4},   // 1/4 is 500 × 375; 1/8 (250 × 188) would not cover it
		{240, 180, 8},   // 1/8 covers 240 × 180
		{900, 900, 2},   // the fit is 900 × 675: 1/2 is 1000 × 750
		{1200, 1000, 1}, // the fit is 1200 × 900: only the whole covers it
		{0, 0, 1},       // Open
	} {
		d, err := OpenView(ctx, JPEG, data, Limits{}, tc.viewW, tc.viewH)
		if err != nil {
			t.Fatal(err)
		}
		if d.Scale() != tc.scale {
			t.Fatalf("%d×%d: opened at 1/%d, want 1/%d", tc.viewW, tc.viewH, d.Scale(), tc.scale)
		}
		if w, h := d.Size(); w != 2000 || h != 1500 {
			t.Fatalf("size %d×%d", w, h)
		}
		base, full, err := d.Base(ctx, 0)
		if err != nil || full != (tc.scale == 1) {
			t.Fatalf("base: full %v, %v", full, err)
		}
		if tc.viewW == 0 {
			continue
		}
		fw, fh := FitSize(2000, 1500, tc.viewW, tc.viewH)
		if b := base.Bounds(); b.Dx() < fw || b.Dy() < fh {
			t.Fatalf("%d×%d: the reduced picture %v does not cover the fit %d×%d", tc.viewW, tc.viewH, b, fw, fh)
		}
		v, err := d.View(ctx, 0, tc.viewW, tc.viewH)
		if err != nil {
			t.Fatal(err)
		}
		if b := v.Bounds(); b.Dx() != fw || b.Dy() != fh {
			t.Fatalf("view %v, want %d×%d", b, fw, fh)
		}
		// It is the picture the whole decode gives, fitted: the card's
		// colours where they are.
		std, _ := jpeg.Decode(bytes.NewReader(data))
		want, _ := Fit(ctx, std, tc.viewW, tc.viewH)
		if d := meanDiff(v, want); d > 6 {
			t.Fatalf("%d×%d: the reduced view differs from the whole one's by %.1f a channel on average", tc.viewW, tc.viewH, d)
		}
		if d.full != nil && d.full.decodes.Load() != 0 {
			t.Fatal("the full resolution was decoded for the first view")
		}
	}
}

func meanDiff(a, b *image.RGBA) float64 {
	var s, n float64
	for i := range a.Pix {
		if i%4 == 3 {
			continue
		}
		d := float64(a.Pix[i]) - float64(b.Pix[i])
		if d < 0 {
			d = -d
		}
		s += d
		n++
	}
	return s / n
}

func TestTheFullResolutionIsDecodedOnDemandAndOnce(t *testing.T) {
	ctx := context.Background()
	data := noisyCard(t, 1600, 1200)
	d, err := OpenView(ctx, JPEG, data, Limits{}, 300, 200)
	if err != nil {
		t.Fatal(err)
	}
	if d.Scale() == 1 || d.full.decodes.Load() != 0 {
		t.Fatalf("opened at 1/%d, %d full decodes", d.Scale(), d.full.decodes.Load())
	}
	// A caller that gives up does not stop the decode, nor start a second.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := d.Page(gone, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
	const callers = 8
	pages := make([]image.Image, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := d.Page(ctx, 0)
			if err != nil {
				t.Error(err)
			}
			pages[i] = p
		}()
	}
	wg.Wait()
	if n := d.full.decodes.Load(); n != 1 {
		t.Fatalf("%d full decodes, want 1", n)
	}
	std, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if p != pages[0] {
			t.Fatal("the callers got different pictures")
		}
	}
	if !reflect.DeepEqual(pages[0], std) {
		t.Fatal("the full resolution is not the standard library's decode")
	}
	base, full, err := d.Base(ctx, 0)
	if err != nil || !full || base != pages[0] {
		t.Fatalf("after the decode, the base is full %v (%v)", full, err)
	}
}

func TestAReducedOpenRefusesWhatOpenRefuses(t *testing.T) {
	ctx := context.Background()
	j := noisyCard(t, 800, 600)
	// The megapixel limit, from the header, before any decode.
	if _, err := OpenView(ctx, JPEG, j, Limits{MaxPixels: 400_000}, 100, 100); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
	// Damaged: cut, and its entropy data broken.
	for _, bad := range [][]byte{j[:len(j)/2], j[:len(j)-100]} {
		if d, err := OpenView(ctx, JPEG, bad, Limits{}, 100, 100); err == nil || d != nil || !errors.Is(err, ErrDamaged) {
			t.Fatalf("a cut JPEG of %d bytes opened reduced: %v", len(bad), err)
		}
	}
	// A lying type.
	if _, err := OpenView(ctx, PNG, j, Limits{}, 100, 100); !errors.Is(err, ErrMismatch) {
		t.Fatalf("mismatch: %v", err)
	}
	// A PNG is opened whole, whatever the view.
	d, err := OpenView(ctx, PNG, encPNG(t, card(400, 300)), Limits{}, 50, 50)
	if err != nil || d.Scale() != 1 {
		t.Fatalf("png: %v", err)
	}
}

// manyScansJPEG: a progressive gray JPEG of w × h with n AC scans of a
// few bytes each, every one a pass over all the picture's blocks.
func manyScansJPEG(w, h, n int) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8, 0xFF, 0xDB, 0, 67, 0})
	b.Write(bytes.Repeat([]byte{1}, 64))
	b.Write([]byte{0xFF, 0xC2, 0, 11, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 1, 1, 0x11, 0})
	b.Write([]byte{0xFF, 0xC4, 0, 20, 0x10, 1})
	b.Write(make([]byte, 15))
	b.WriteByte(0xE0)
	codes := (((w+7)/8)*((h+7)/8) + 1<<14 - 1) >> 14
	data := make([]byte, (codes*15+7)/8+1)
	for range n {
		b.Write([]byte{0xFF, 0xDA, 0, 8, 1, 1, 0x00, 1, 63, 0})
		b.Write(data)
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

// A small hostile JPEG does not keep a core busy for minutes: a 4
// megapixel picture of 2,000 empty scans (30 kB; a 10 MiB file holds
// hundreds of thousands) is refused as damaged, at the first view and at
// full resolution, instead of being decoded scan after scan.
func TestAJPEGOfThousandsOfScansIsRefused(t *testing.T) {
	data := manyScansJPEG(2000, 2000, 2000)
	for _, view := range [][2]int{{0, 0}, {400, 300}} {
		d, err := OpenView(context.Background(), JPEG, data, Limits{}, view[0], view[1])
		if !errors.Is(err, ErrDamaged) || d != nil || !strings.Contains(err.Error(), "decoding work") {
			t.Fatalf("%d scans, %d bytes, opened for %v: %v", 2000, len(data), view, err)
		}
	}
}

// cancelledOnceReading is a context that is live for its first look and
// cancelled from the second on: the reviewer moved to another item after
// the decode began.
type cancelledOnceReading struct {
	context.Context
	looks atomic.Int32
}

func (c *cancelledOnceReading) Err() error {
	if c.looks.Add(1) > 1 {
		return context.Canceled
	}
	return nil
}

// A first view stops decoding when the reviewer moves on: each decode of
// a large progressive JPEG holds hundreds of megabytes of coefficients,
// and moving up and down past one started a decode each time, every one
// run to its end (gigabytes in a few seconds).
func TestAFirstViewStopsDecodingWhenTheReviewerMovesOn(t *testing.T) {
	data := noisyCard(t, 2000, 1500)
	ctx := &cancelledOnceReading{Context: context.Background()}
	d, err := OpenView(ctx, JPEG, data, Limits{}, 400, 300)
	if !errors.Is(err, context.Canceled) || d != nil {
		t.Fatalf("cancelled while decoding: %v, %v, want context.Canceled", d, err)
	}
	if n := ctx.looks.Load(); n < 2 {
		t.Fatalf("the context was looked at %d times while decoding", n)
	}
}

// A large decode's garbage (a progressive JPEG keeps 256 bytes of
// coefficients a block, whatever the scale) goes back to the system when
// the decode ends, not minutes later: a reviewer passing over large photos
// would otherwise see the window hold gigabytes it no longer uses.
func TestALargeDecodeHandsItsGarbageBack(t *testing.T) {
	data := manyScansJPEG(4000, 4000, 2) // 250,000 blocks: 64 MB of coefficients
	d, err := OpenView(context.Background(), JPEG, data, Limits{}, 400, 300)
	if err != nil || d == nil {
		t.Fatal(err)
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if held := m.HeapSys - m.HeapReleased; held > 32<<20 {
		t.Fatalf("the heap holds %d MB from the system after the decode", held>>20)
	}
	runtime.KeepAlive(d)
}
