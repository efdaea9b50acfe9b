package document

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
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
func twoPagePDF() []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 298 420] /Contents 6 0 R >>",
		stream("0 0 1 rg 0 0 149 210 re f"),
		stream("1 0 0 rg 0 0 149 210 re f"),
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	return []byte(b.String())
}

func stream(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}
