package document

import (
	"bytes"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/trustscreen/reviewer/internal/document/pdftest"
)

// Samples made in Go: no binary blob is committed but the fuzz corpus.

// card is a passport-like picture: a light card, a dark photo box at the
// left, and text-like lines.
func card(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{230, 225, 200, 255}
			switch {
			case x > w/16 && x < w/3 && y > h/8 && y < h*7/8:
				c = color.RGBA{40, 60, 120, 255} // the photo box
			case x > w*2/5 && x < w*9/10 && (y*8/h)%2 == 1 && y > h/8 && y < h*7/8:
				c = color.RGBA{30, 30, 30, 255} // a line of text
			}
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

func encJPEG(t testing.TB, m image.Image, q int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, m, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encPNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngClaiming returns a valid PNG whose header (with its checksum) claims
// w × h pixels: a small file asking for a huge allocation.
func pngClaiming(t testing.TB, w, h uint32) []byte {
	b := encPNG(t, card(4, 4))
	ihdr := b[8+8 : 8+8+13] // after the signature, length and "IHDR"
	ihdr[0], ihdr[1], ihdr[2], ihdr[3] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
	ihdr[4], ihdr[5], ihdr[6], ihdr[7] = byte(h>>24), byte(h>>16), byte(h>>8), byte(h)
	sum := crc32.ChecksumIEEE(b[8+4 : 8+8+13])
	c := b[8+8+13:]
	c[0], c[1], c[2], c[3] = byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum)
	return b
}

// webp1x1 is a 1 × 1 lossless WebP (x/image has no encoder).
var webp1x1 = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

// twoPagePDF is a valid PDF of two A6 pages: page 1 has a blue square,
// page 2 a red one, each at the page's lower left quarter.
func twoPagePDF() []byte { return pdftest.TwoPagePDF() }
