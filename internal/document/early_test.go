package document

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"
)

// A progressive photo (a real file, testdata/images/progressive-photo.jpg)
// hands its early picture while it is decoded: the 1/8 picture of its
// first scans, upright, enlarged to the size the whole picture is shown
// at in the view, near the whole picture; then the file is decoded whole
// and opens as OpenView opens it. A baseline photo hands none.
func TestAProgressivePhotoShowsItsFirstScansPictureFirst(t *testing.T) {
	data := readSample(t, "images/progressive-photo.jpg")
	var early []Early
	d, err := OpenViewEarly(context.Background(), JPEG, data, Limits{}, ViewerWidth, ViewerHeight, func(e Early) {
		early = append(early, e)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(early) != 1 {
		t.Fatalf("%d early pictures, want 1", len(early))
	}
	e := early[0]
	if e.W != 144 || e.H != 224 || e.Fit.Bounds() != image.Rect(0, 0, 144, 224) {
		t.Fatalf("early picture %v of a %d × %d picture, want 144 × 224", e.Fit.Bounds(), e.W, e.H)
	}
	whole, err := d.Page(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Blurred (an 8 × 8 block is one sample of it), but the same picture.
	if p := psnr(t, boxAverage(e.Fit, 8), boxAverage(whole, 8)); p < 24 {
		t.Fatalf("the early picture is %.1f dB from the whole one, over 8 × 8 boxes", p)
	}
	if p := psnr(t, e.Fit, toRGBA(whole)); p > 40 {
		t.Fatalf("the early picture is %.1f dB from the whole one: not the first scans' picture", p)
	}
	if _, err := OpenViewEarly(context.Background(), JPEG, readSample(t, "images/upright6.jpg"), Limits{}, ViewerWidth, ViewerHeight, func(Early) {
		t.Fatal("a baseline photo handed an early picture")
	}); err != nil {
		t.Fatal(err)
	}
}

// The same photo cut short in its last scan, or with a bit flipped in it
// (both refused by libjpeg-turbo's djpeg too): the early picture comes,
// since the first scans are whole, and then the refusal in the viewer's
// words. The early picture never stands for the file.
func TestAProgressivePhotoDamagedLateIsRefusedAfterItsEarlyPicture(t *testing.T) {
	for _, c := range []struct{ file, words string }{
		{"images/progressive-photo.cut.jpg", "The file is cut short"},
		{"images/progressive-photo.flipped.jpg", "The file is damaged"},
	} {
		early := 0
		d, err := OpenViewEarly(context.Background(), JPEG, readSample(t, c.file), Limits{}, ViewerWidth, ViewerHeight, func(Early) { early++ })
		if early != 1 || d != nil || !errors.Is(err, ErrDamaged) || !strings.HasPrefix(err.Error(), c.words) {
			t.Fatalf("%s: %d early pictures, doc %v, error %v; want 1, none, %q", c.file, early, d != nil, err, c.words)
		}
	}
}
