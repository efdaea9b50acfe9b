package screenapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The documents the service serves for its seeded items. They are drawn
// when first asked for (nothing binary is committed), from the item's id, so
// that every item's file is distinct and the same on every run:
//   - an ID document (passport, ID card, licence, permit): a card with
//     a photo box and text lines, as a JPEG (or a PNG for a .png name);
//   - a selfie: a face, as a JPEG, a PNG or a lossless WebP by its name;
//   - a utility bill: a page of text and a table, as a PNG;
//   - a PDF (a licence or a bill): two pages, each with text and a box.
// Each item's media_type says what its bytes are.

// document draws the file of a seeded item's first version.
func document(id, fileName, mediaType string) []byte {
	h := fnv.New32a()
	h.Write([]byte(id))
	seed := h.Sum32()
	lower := strings.ToLower(fileName)
	switch {
	case mediaType == "application/pdf":
		return pdfDocument(id, fileName)
	case strings.HasPrefix(lower, "selfie"):
		img := face(seed)
		text(img, 8, 292, color.Black, id)
		if mediaType == "image/webp" {
			return webpLossless(img)
		}
		return encode(img, mediaType)
	case strings.Contains(lower, "bill"):
		return encode(bill(id, seed), mediaType)
	case mediaType == "image/webp": // no seeded ID document is a WebP; a face stands in
		img := face(seed)
		text(img, 8, 292, color.Black, id)
		return webpLossless(img)
	}
	return encode(card(id, fileName, seed), mediaType)
}

func encode(img image.Image, mediaType string) []byte {
	var b bytes.Buffer
	if mediaType == "image/png" {
		_ = png.Encode(&b, img)
	} else {
		_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 85})
	}
	return b.Bytes()
}

func fill(img draw.Image, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{C: c}, image.Point{}, draw.Src)
}

func text(img draw.Image, x, y int, c color.Color, s string) {
	d := &font.Drawer{Dst: img, Src: &image.Uniform{C: c}, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

// ellipse fills the ellipse in r.
func ellipse(img draw.Image, r image.Rectangle, c color.Color) {
	cx, cy := float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2
	rx, ry := float64(r.Dx())/2, float64(r.Dy())/2
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			dx, dy := (float64(x)+0.5-cx)/rx, (float64(y)+0.5-cy)/ry
			if dx*dx+dy*dy <= 1 {
				img.Set(x, y, c)
			}
		}
	}
}

var surnames = []string{"MARTIN", "SILVA", "KOWALSKA", "OKAFOR", "LIMA", "NAKAMURA", "HANSEN", "ROSSI"}
var givenNames = []string{"ANA", "BEN", "CLARA", "DAVID", "EMMA", "FARID", "GRETA", "HUGO"}

// card is a passport-like card: a photo box with a face, a title and text lines.
func card(id, fileName string, seed uint32) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 640, 404))
	tint := uint8(seed % 60)
	fill(img, img.Bounds(), color.RGBA{R: 200 + tint/3, G: 215, B: 230 - tint/2, A: 255})
	fill(img, image.Rect(0, 0, 640, 56), color.RGBA{R: 30, G: 50 + tint, B: 110, A: 255})
	title := fileName
	if i := strings.LastIndexByte(title, '.'); i > 0 {
		title = title[:i]
	}
	title = strings.ReplaceAll(strings.TrimSuffix(strings.ToUpper(title), "-FRONT"), "-", " ")
	text(img, 24, 34, color.White, "DEMO REPUBLIC - "+title)
	// The photo box, and a face in it.
	box := image.Rect(24, 80, 204, 320)
	fill(img, box, color.RGBA{R: 235, G: 235, B: 228, A: 255})
	draw.Draw(img, box.Inset(4), face(seed), image.Point{}, draw.Src)
	lines := [][2]string{
		{"Surname", surnames[seed%8]}, {"Given names", givenNames[(seed/8)%8]},
		{"Nationality", "DEMO"}, {"Date of birth", fmt.Sprintf("%02d.%02d.19%02d", 1+seed%28, 1+seed%12, 50+seed%50)},
		{"Document no.", strings.ToUpper(id)}, {"Expires", fmt.Sprintf("%02d.%02d.20%02d", 1+seed%28, 1+(seed/3)%12, 27+seed%9)},
	}
	for i, l := range lines {
		y := 100 + i*36
		text(img, 232, y, color.RGBA{R: 90, G: 90, B: 110, A: 255}, l[0])
		text(img, 232, y+16, color.Black, l[1])
	}
	// The machine-readable zone.
	fill(img, image.Rect(0, 340, 640, 404), color.RGBA{R: 245, G: 245, B: 240, A: 255})
	mrz := "P<DEM" + surnames[seed%8] + "<<" + givenNames[(seed/8)%8]
	text(img, 24, 364, color.Black, (mrz + strings.Repeat("<", 80))[:86])
	text(img, 24, 384, color.Black, (strings.ToUpper(strings.ReplaceAll(id, "_", "")) + "<DEM" + strings.Repeat("<", 80))[:86])
	return img
}

// face is a selfie-like face on a plain background.
func face(seed uint32) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 240, 300))
	bg := []color.RGBA{{180, 200, 220, 255}, {210, 200, 180, 255}, {190, 215, 190, 255}}[seed%3]
	fill(img, img.Bounds(), bg)
	skin := []color.RGBA{{240, 205, 170, 255}, {200, 150, 110, 255}, {140, 95, 65, 255}, {225, 180, 140, 255}}[(seed/3)%4]
	hair := []color.RGBA{{40, 30, 20, 255}, {120, 80, 40, 255}, {200, 170, 90, 255}, {20, 20, 20, 255}}[(seed/12)%4]
	wide, eyes, mouth := int(seed>>16%16), int(seed>>20%10), int(seed>>24%14)
	ellipse(img, image.Rect(30, 230, 210, 380), color.RGBA{R: 60, G: 70, B: 100, A: 255}) // shoulders
	ellipse(img, image.Rect(55-wide/2, 30, 185+wide/2, 200), hair)
	ellipse(img, image.Rect(65-wide/2, 55, 175+wide/2, 215), skin)
	ellipse(img, image.Rect(92, 105+eyes, 110, 119+eyes), color.RGBA{R: 40, G: 40, B: 40, A: 255})
	ellipse(img, image.Rect(130, 105+eyes, 148, 119+eyes), color.RGBA{R: 40, G: 40, B: 40, A: 255})
	ellipse(img, image.Rect(100-mouth/2, 170, 140+mouth/2, 182), color.RGBA{R: 170, G: 70, B: 70, A: 255})
	return img
}

// bill is a utility bill page: a letterhead, an address, a table of charges.
func bill(id string, seed uint32) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, 595, 842))
	fill(img, img.Bounds(), color.White)
	fill(img, image.Rect(0, 0, 595, 70), color.RGBA{R: 20, G: 120, B: 90, A: 255})
	text(img, 30, 42, color.White, "DEMO POWER & WATER")
	name := givenNames[(seed/8)%8] + " " + surnames[seed%8]
	for i, l := range []string{name, fmt.Sprintf("%d Example Street", 1+seed%200), "1000 Demo City", "", "Account " + strings.ToUpper(id), fmt.Sprintf("Bill of %02d/2026", 1+seed%11)} {
		text(img, 30, 110+i*18, color.Black, l)
	}
	fill(img, image.Rect(30, 250, 565, 252), color.Black)
	total := 0
	for i := 0; i < 8; i++ {
		amount := int(seed>>uint(i)%90) + 10
		total += amount
		y := 275 + i*22
		text(img, 30, y, color.Black, fmt.Sprintf("Charge %d", i+1))
		text(img, 480, y, color.Black, fmt.Sprintf("%4d.00", amount))
	}
	fill(img, image.Rect(30, 455, 565, 457), color.Black)
	text(img, 30, 478, color.Black, "Total due")
	text(img, 480, 478, color.Black, fmt.Sprintf("%4d.00", total))
	return img
}

// pdfDocument writes a PDF of two pages by hand: on each, a drawn box and
// lines of text. The cross-reference table carries the real offsets.
func pdfDocument(id, fileName string) []byte {
	esc := func(s string) string {
		return strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
	}
	page := func(n int, lines ...string) string {
		var c strings.Builder
		fmt.Fprintf(&c, "0.2 0.4 0.7 RG 3 w 40 %d 515 %d re S\n", 520-n*40, 260+n*20)
		c.WriteString("BT /F1 16 Tf 60 760 Td (" + esc(fmt.Sprintf("%s, page %d of 2", fileName, n)) + ") Tj ET\n")
		for i, l := range lines {
			fmt.Fprintf(&c, "BT /F1 12 Tf 60 %d Td (%s) Tj ET\n", 720-i*20, esc(l))
		}
		return c.String()
	}
	contents := []string{
		page(1, "Document for item "+id, "Issued by the Demo Republic", "This page carries a drawn box and text."),
		page(2, "Second page of item "+id, "Conditions and signature", "Signed: the holder"),
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 7 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 7 0 R >> >> /Contents 6 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(contents[0]), contents[0]),
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(contents[1]), contents[1]),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	return PDF(objs)
}

// PDF assembles a PDF file from its objects, numbered from 1 in order
// (object 1 the catalog), with the cross-reference table of their real
// offsets. The tests' documents are written with it too
// (internal/document/pdftest).
func PDF(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

// webpLossless writes img as a lossless WebP (VP8L) in eight colours: each
// of red, green and blue is one of two values, so that each channel's
// prefix code is a "simple" code of two symbols (one bit a pixel), alpha
// and distance a single symbol (no bits). No transform, no colour cache.
func webpLossless(img *image.RGBA) []byte {
	const lo, hi = 0x38, 0xE8
	var w bitWriter
	bnd := img.Bounds()
	w.write(0x2f, 8)
	w.write(uint32(bnd.Dx()-1), 14)
	w.write(uint32(bnd.Dy()-1), 14)
	w.write(0, 1)   // alpha is not used
	w.write(0, 3)   // version 0
	w.write(0, 1)   // no transform
	w.write(0, 1)   // no colour cache
	w.write(0, 1)   // no meta prefix codes
	two := func() { // a simple code of the symbols lo and hi
		w.write(1, 1)
		w.write(1, 1) // two symbols
		w.write(1, 1) // the first takes 8 bits
		w.write(lo, 8)
		w.write(hi, 8)
	}
	two() // green
	two() // red
	two() // blue
	w.write(1, 1)
	w.write(0, 1)
	w.write(1, 1)
	w.write(0xff, 8) // alpha: 255
	w.write(1, 1)
	w.write(0, 1)
	w.write(0, 1)
	w.write(0, 1) // distance: the one symbol 0
	bit := func(v uint8) uint32 {
		if v >= 0x80 {
			return 1
		}
		return 0
	}
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			c := img.RGBAAt(x, y)
			w.write(bit(c.G), 1)
			w.write(bit(c.R), 1)
			w.write(bit(c.B), 1)
		}
	}
	data := w.bytes()
	var b bytes.Buffer
	chunk := len(data) + len(data)%2
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(4+8+chunk))
	b.WriteString("WEBPVP8L")
	_ = binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	if len(data)%2 == 1 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

// bitWriter writes bits least significant first, as VP8L reads them.
type bitWriter struct {
	buf  []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) write(v uint32, n uint) {
	w.acc |= uint64(v) << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

func (w *bitWriter) bytes() []byte {
	if w.nacc > 0 {
		return append(w.buf, byte(w.acc))
	}
	return w.buf
}

// etag is a strong entity tag of a file's bytes.
func etag(data []byte) string {
	sum := sha256.Sum256(data)
	return fmt.Sprintf(`"%x"`, sum[:12])
}

// Scan is a file a customer might send again, for the tests' uploads: a
// sound PNG of about n bytes (its pixels are noise, which does not
// compress), the same on every run. The console checks an upload as its
// viewer would before paying for it, so a test's file must be a real
// picture, not a few magic bytes.
func Scan(n int) []byte {
	side := max(8, int(math.Sqrt(float64(n)/3)))
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 0xff
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}
