package document

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// readSample reads a file of testdata (its source is in testdata/SOURCES.md).
func readSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toRGBA(m image.Image) *image.RGBA {
	b := m.Bounds()
	r := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(r, r.Rect, m, b.Min, draw.Src)
	return r
}

// A phone's photo is stored as the sensor saw it, with the EXIF
// Orientation saying how to turn it upright. Each orientN.jpg is one
// stored picture tagged N; uprightN.jpg is the same picture turned by
// jpegtran (losslessly, in the DCT domain): what a photo viewer shows. The
// first view (reduced) and the full size are both upright.
func TestAPhonePhotoIsShownUprightAsItsEXIFOrientationSays(t *testing.T) {
	ctx := context.Background()
	stored, err := jpeg.Decode(bytes.NewReader(readSample(t, "images/orient6.jpg")))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []int{3, 5, 6, 8} {
		data := readSample(t, "images/orient"+strconv.Itoa(o)+".jpg")
		up, err := jpeg.Decode(bytes.NewReader(readSample(t, "images/upright"+strconv.Itoa(o)+".jpg")))
		if err != nil {
			t.Fatal(err)
		}
		want := toRGBA(up)
		if o == 3 {
			// The control: the picture as stored is far from upright.
			if d := meanDiff(toRGBA(stored), want); d < 20 {
				t.Fatalf("the stored picture is only %.1f from the upright one: the sample proves nothing", d)
			}
		}
		d, err := Open(ctx, JPEG, data, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Orientation() != o {
			t.Fatalf("orientation %d, want %d", d.Orientation(), o)
		}
		w, h := d.Size()
		if w != want.Rect.Dx() || h != want.Rect.Dy() {
			t.Fatalf("orientation %d: size %d×%d, want %v", o, w, h, want.Rect)
		}
		page, err := d.Page(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := toRGBA(page)
		if got.Rect != want.Rect {
			t.Fatalf("orientation %d: page %v, want %v", o, got.Rect, want.Rect)
		}
		if diff := meanDiff(got, want); diff > 2 {
			t.Fatalf("orientation %d: %.1f a channel from the upright picture", o, diff)
		}

		// The first view, decoded reduced, is upright too, and so is the
		// full size decoded after it.
		v, err := OpenView(ctx, JPEG, data, Limits{}, 40, 40)
		if err != nil {
			t.Fatal(err)
		}
		if v.Scale() == 1 {
			t.Fatalf("orientation %d: the first view was not reduced", o)
		}
		fit, err := v.View(ctx, 0, 40, 40)
		if err != nil {
			t.Fatal(err)
		}
		// Held to the same first view of the file jpegtran turned.
		upView, err := OpenView(ctx, JPEG, readSample(t, "images/upright"+strconv.Itoa(o)+".jpg"), Limits{}, 40, 40)
		if err != nil || upView.Scale() != v.Scale() {
			t.Fatalf("orientation %d: the upright file opened at 1/%d, the tagged one at 1/%d (%v)", o, upView.Scale(), v.Scale(), err)
		}
		wantFit, err := upView.View(ctx, 0, 40, 40)
		if err != nil {
			t.Fatal(err)
		}
		if fit.Rect != wantFit.Rect {
			t.Fatalf("orientation %d: first view %v, want %v", o, fit.Rect, wantFit.Rect)
		}
		if diff := meanDiff(fit, wantFit); diff > 2 {
			t.Fatalf("orientation %d: the first view is %.1f a channel from the upright one", o, diff)
		}
		full, err := v.Page(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := meanDiff(toRGBA(full), want); diff > 2 {
			t.Fatalf("orientation %d: the full size after the first view is %.1f from upright", o, diff)
		}
	}
}

// Every orientation moves the planes of every kind of picture the
// decoders give as the EXIF definition says: checked pixel by pixel
// against the definition's own mapping, on pictures whose sides are not
// whole numbers of chroma samples too (they become RGBA).
func TestOrientMovesEveryPixelWhereTheDefinitionSays(t *testing.T) {
	// src(x, y) for destination (x, y) of a w × h source, from EXIF 2.32.
	where := func(o, x, y, w, h int) (int, int) {
		return [9][2]int{
				1: {x, y}, 2: {w - 1 - x, y}, 3: {w - 1 - x, h - 1 - y}, 4: {x, h - 1 - y},
				5: {y, x}, 6: {y, h - 1 - x}, 7: {w - 1 - y, h - 1 - x}, 8: {w - 1 - y, x},
			}[o][0], [9][2]int{
				1: {x, y}, 2: {w - 1 - x, y}, 3: {w - 1 - x, h - 1 - y}, 4: {x, h - 1 - y},
				5: {y, x}, 6: {y, h - 1 - x}, 7: {w - 1 - y, h - 1 - x}, 8: {w - 1 - y, x},
			}[o][1]
	}
	for _, size := range [][2]int{{6, 4}, {7, 5}} {
		w, h := size[0], size[1]
		for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440} {
			src := image.NewYCbCr(image.Rect(0, 0, w, h), ratio)
			for i := range src.Y {
				src.Y[i] = uint8(i * 7)
			}
			for i := range src.Cb {
				src.Cb[i], src.Cr[i] = uint8(i*13), uint8(255-i*11)
			}
			for o := 1; o <= 8; o++ {
				got := orient(src, o)
				for y := 0; y < got.Bounds().Dy(); y++ {
					for x := 0; x < got.Bounds().Dx(); x++ {
						sx, sy := where(o, x, y, w, h)
						if !sameColour(got.At(x, y), src.At(sx, sy)) {
							t.Fatalf("%d×%d %v, orientation %d: (%d,%d) is %v, want source (%d,%d) %v", w, h, ratio, o, x, y, got.At(x, y), sx, sy, src.At(sx, sy))
						}
					}
				}
			}
		}
	}
}

// sameColour: the same colour within one step of eight bits (a YCbCr
// picture made RGBA by image/draw rounds apart from color.YCbCr.RGBA).
func sameColour(a, b color.Color) bool {
	ar, ag, ab, aa := a.RGBA()
	br, bg, bb, ba := b.RGBA()
	near := func(x, y uint32) bool { return max(x, y)-min(x, y) <= 0x101 }
	return near(ar, br) && near(ag, bg) && near(ab, bb) && aa == ba
}
