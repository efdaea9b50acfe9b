package jpegscale

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// corpus is every input the differential tests decode: the standard
// library's test pictures copied here (testdata/*.jpeg), the document
// package's committed fuzz corpus, pictures encoded here (odd sizes, grey,
// qualities) and truncations of all of them.
func corpus(t testing.TB) map[string][]byte {
	t.Helper()
	c := map[string][]byte{}
	files, err := filepath.Glob(filepath.Join("testdata", "*.jpeg"))
	if err != nil || len(files) < 20 {
		t.Fatalf("testdata: %d files, %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c[filepath.Base(f)] = b
	}
	docs, _ := filepath.Glob(filepath.Join("..", "document", "testdata", "fuzz", "FuzzOpen", "*"))
	if len(docs) == 0 {
		t.Fatal("the document package's fuzz corpus is missing")
	}
	for _, f := range docs {
		for i, b := range fuzzFileBytes(t, f) {
			c["document/"+filepath.Base(f)+"/"+strconv.Itoa(i)] = b
		}
	}
	for _, m := range []struct {
		name string
		img  image.Image
		q    int
	}{
		{"photo-1x1", photo(1, 1), 90},
		{"photo-17x9", photo(17, 9), 75},
		{"photo-33x65", photo(33, 65), 95},
		{"photo-250x131", photo(250, 131), 90},
		{"photo-250x131-q100", photo(250, 131), 100},
		{"photo-250x131-q10", photo(250, 131), 10},
		{"gray-101x37", grayOf(photo(101, 37)), 85},
		// Over pipelineMinMCUs: reconstructed on a second goroutine.
		{"photo-720x480", photo(720, 480), 90},
		{"gray-1100x1000", grayOf(photo(1100, 1000)), 80},
	} {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, m.img, &jpeg.Options{Quality: m.q}); err != nil {
			t.Fatal(err)
		}
		c[m.name] = b.Bytes()
	}
	// Truncated and damaged copies: every outcome must agree, error or not.
	for name, b := range maps(c) {
		for _, n := range []int{2, 3, 100, len(b) / 3, len(b) / 2, len(b) - 2} {
			if n > 0 && n < len(b) {
				c[name+"/cut"+strconv.Itoa(n)] = b[:n]
			}
		}
		if len(b) > 400 {
			d := append([]byte(nil), b...)
			r := rand.New(rand.NewSource(int64(len(b))))
			for i := 0; i < 8; i++ {
				d[len(d)/3+r.Intn(len(d)/2)] ^= byte(1 + r.Intn(255))
			}
			c[name+"/flipped"] = d
		}
	}
	return c
}

func maps(c map[string][]byte) map[string][]byte {
	o := make(map[string][]byte, len(c))
	for k, v := range c {
		o[k] = v
	}
	return o
}

// fuzzFileBytes reads the []byte values of a "go test fuzz v1" file.
func fuzzFileBytes(t testing.TB, path string) [][]byte {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, line := range strings.Split(string(raw), "\n") {
		if s, ok := strings.CutPrefix(line, "[]byte("); ok {
			q, err := strconv.Unquote(strings.TrimSuffix(s, ")"))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, []byte(q))
		}
	}
	return out
}

// photo is photo-like content: smooth gradients, edges and noise.
func photo(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewSource(int64(w*7919 + h)))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			n := r.Intn(40) - 20
			v := func(base int) uint8 { return uint8(min(255, max(0, base+n))) }
			c := color.RGBA{v(x * 255 / max(1, w)), v(y * 255 / max(1, h)), v(128), 255}
			if (x/16+y/16)%3 == 0 {
				c = color.RGBA{v(30), v(40), v(200), 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

func grayOf(m image.Image) *image.Gray {
	g := image.NewGray(m.Bounds())
	draw.Draw(g, g.Bounds(), m, m.Bounds().Min, draw.Src)
	return g
}

// sameAsStandard decodes b with both decoders and fails unless both fail,
// or both give the same image, pixel for pixel.
func sameAsStandard(t *testing.T, name string, b []byte) {
	t.Helper()
	want, werr := jpeg.Decode(bytes.NewReader(b))
	got, gerr := Decode(bytes.NewReader(b))
	if IsTooMuchWork(gerr) {
		return // the fork's refusals of its own (maxScans, maxBlockVisits)
	}
	if beyondStandard(b, werr) {
		// Where the fork reads what the standard library does not: a
		// Motion-JPEG frame's missing tables, the restart markers of a
		// non-interleaved scan. Held to libjpeg-turbo and image-rs by
		// the document package's tests on real files.
		return
	}
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s: the standard library says %v, the fork %v", name, werr, gerr)
	}
	if werr != nil {
		return
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: the pixels differ (%T %v, %T %v)", name, want, want.Bounds(), got, got.Bounds())
	}
	wc, werr := jpeg.DecodeConfig(bytes.NewReader(b))
	gc, gerr := DecodeConfig(bytes.NewReader(b))
	if (werr == nil) != (gerr == nil) || wc != gc {
		t.Fatalf("%s: config %+v %v, fork %+v %v", name, wc, werr, gc, gerr)
	}
}

// beyondStandard: the two things the fork decodes otherwise than the
// standard library, on purpose: a scan that uses a Huffman table the file
// never defined (the standard tables, as libjpeg-turbo does), and a file
// with a restart interval and a scan of one component (whose MCU is one
// block, where the standard library counts four in 4:2:0).
func beyondStandard(b []byte, werr error) bool {
	if werr != nil && strings.Contains(werr.Error(), "uninitialized Huffman table") {
		return true
	}
	dri := bytes.Index(b, []byte{0xff, 0xdd, 0x00, 0x04})
	if dri < 0 || dri+6 > len(b) || b[dri+4]|b[dri+5] == 0 {
		return false
	}
	return bytes.Contains(b, []byte{0xff, 0xda, 0x00, 0x08, 0x01})
}

func TestDecodeIsTheStandardLibrarys(t *testing.T) {
	c := corpus(t)
	decoded := 0
	for name, b := range c {
		sameAsStandard(t, name, b)
		if _, err := jpeg.Decode(bytes.NewReader(b)); err == nil {
			decoded++
		}
	}
	// Every scan reconstructed on the second goroutine, small ones too.
	defer setPipelineMin(1)()
	for name, b := range c {
		sameAsStandard(t, name+" (pipelined)", b)
	}
	// The corpus is not all errors: most of it decodes.
	if decoded < 35 {
		t.Fatalf("only %d of %d inputs decode", decoded, len(c))
	}
}

// minPSNR is the least a scaled decode must agree with the standard
// library's full decode averaged over denom × denom boxes, in dB of RGB,
// on an undamaged picture. Chroma subsampled one way only (4:1:1, 4:4:0,
// 4:1:0) is reduced as much as the luma at 1/8, and loses colour
// resolution the box average keeps: 26 dB there (27 to 30 measured).
const minPSNR, minPSNRChroma = 30, 26

func tolerance(name string, full image.Image, denom int) float64 {
	if strings.Contains(name, "/") {
		return 0 // damaged: its pixels are noise; size and errors still agree
	}
	if m, ok := full.(*image.YCbCr); ok && denom == 8 {
		switch m.SubsampleRatio {
		case image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio410:
			return minPSNRChroma
		}
	}
	return minPSNR
}

func TestDecodeScaledIsTheFullDecodeAveraged(t *testing.T) {
	c := corpus(t)
	for name, b := range c {
		full, ferr := jpeg.Decode(bytes.NewReader(b))
		for _, denom := range []int{2, 4, 8} {
			got, err := decodeScaledNamed(t, name, b, denom)
			if (err == nil) != (ferr == nil) {
				t.Fatalf("%s 1/%d: the standard library says %v, the scaled decode %v", name, denom, ferr, err)
			}
			if err != nil {
				continue
			}
			fb := full.Bounds()
			wantW, wantH := (fb.Dx()+denom-1)/denom, (fb.Dy()+denom-1)/denom
			if gb := got.Bounds(); gb != image.Rect(0, 0, wantW, wantH) {
				t.Fatalf("%s 1/%d: %v, want %dx%d", name, denom, gb, wantW, wantH)
			}
			if reflect.TypeOf(got) != reflect.TypeOf(full) {
				t.Fatalf("%s 1/%d: %T, the full decode %T", name, denom, got, full)
			}
			if p := psnr(boxAverage(full, denom), toRGBA(got), full.Bounds().Dx()/denom, full.Bounds().Dy()/denom); p < tolerance(name, full, denom) {
				t.Errorf("%s 1/%d: PSNR %.1f dB, want over %.0f", name, denom, p, tolerance(name, full, denom))
			}
		}
	}
	if _, err := DecodeScaled(bytes.NewReader(c["video-001.jpeg"]), 3); err == nil {
		t.Fatal("1/3 was taken")
	}
}

func toRGBA(m image.Image) *image.RGBA {
	o := image.NewRGBA(m.Bounds())
	draw.Draw(o, o.Bounds(), m, m.Bounds().Min, draw.Src)
	return o
}

// boxAverage is m at 1/denom: each pixel the mean of the (up to) denom ×
// denom pixels it stands for.
func boxAverage(m image.Image, denom int) *image.RGBA {
	src := toRGBA(m)
	b := src.Bounds()
	w, h := (b.Dx()+denom-1)/denom, (b.Dy()+denom-1)/denom
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s [4]int
			n := 0
			for yy := y * denom; yy < min(b.Dy(), (y+1)*denom); yy++ {
				for xx := x * denom; xx < min(b.Dx(), (x+1)*denom); xx++ {
					p := src.Pix[src.PixOffset(b.Min.X+xx, b.Min.Y+yy):]
					for k := range s {
						s[k] += int(p[k])
					}
					n++
				}
			}
			o := out.Pix[out.PixOffset(x, y):]
			for k := range s {
				o[k] = uint8((s[k] + n/2) / n)
			}
		}
	}
	return out
}

// psnr compares the RGB of two pictures over their first w × h pixels:
// a scaled decode's last column and row stand for the blocks' padding as
// well as for the picture's last pixels, so they are left out.
func psnr(a, b *image.RGBA, w, h int) float64 {
	var se float64
	n := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p, q := a.Pix[a.PixOffset(a.Rect.Min.X+x, a.Rect.Min.Y+y):], b.Pix[b.PixOffset(b.Rect.Min.X+x, b.Rect.Min.Y+y):]
			for k := 0; k < 3; k++ {
				d := float64(p[k]) - float64(q[k])
				se += d * d
				n++
			}
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

// FuzzDecodeMatchesStandardLibrary: on any bytes, Decode agrees with the
// standard library (both fail, or the same pixels), and the scaled decodes
// fail exactly when it does, never panicking, at their size; but for a
// JPEG of more than maxScans scans, which the fork refuses.
func FuzzDecodeMatchesStandardLibrary(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.q50.*.jpeg"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	defer setPipelineMin(1)()
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
		if err == nil && cfg.Width*cfg.Height > 1<<18 {
			return // a decode of this size is the limit's business, not this test's
		}
		sameAsStandard(t, "input", b)
		_, ferr := jpeg.Decode(bytes.NewReader(b))
		if beyondStandard(b, ferr) {
			_, ferr = Decode(bytes.NewReader(b)) // the scaled decodes are held to the fork's
		}
		for _, denom := range []int{2, 4, 8} {
			m, err := DecodeScaled(bytes.NewReader(b), denom)
			if IsTooMuchWork(err) {
				continue // maxScans, maxBlockVisits
			}
			if (err == nil) != (ferr == nil) {
				t.Fatalf("1/%d: the standard library says %v, the scaled decode %v", denom, ferr, err)
			}
			if err == nil {
				want := image.Rect(0, 0, (cfg.Width+denom-1)/denom, (cfg.Height+denom-1)/denom)
				if m.Bounds() != want && !(want.Empty() && m.Bounds().Empty()) {
					t.Fatalf("1/%d: %v, want %v", denom, m.Bounds(), want)
				}
			}
		}
	})
}

// TestWriteFuzzSeeds writes the fuzz target's committed corpus (small
// encoded pictures and damaged copies) when JPEGSCALE_WRITE_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("JPEGSCALE_WRITE_SEEDS") != "1" {
		t.Skip("JPEGSCALE_WRITE_SEEDS=1 writes testdata/fuzz/FuzzDecodeMatchesStandardLibrary")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecodeMatchesStandardLibrary")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := corpus(t)
	for name, b := range c {
		// The standard library's pictures are seeds already (f.Add);
		// their damaged copies, and the pictures made here, are written.
		if len(b) > 4096 || strings.HasPrefix(name, "document/") || !strings.Contains(name, "/") && strings.HasPrefix(name, "video-") {
			continue
		}
		if strings.HasPrefix(name, "video-") && !strings.Contains(name, "q50.420") && !strings.Contains(name, "gray.q50") {
			continue
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		file := strings.NewReplacer("/", "-", ".", "-").Replace(name)
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func decodeScaledNamed(t *testing.T, name string, b []byte, denom int) (image.Image, error) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s 1/%d: panic %v", name, denom, r)
		}
	}()
	return DecodeScaled(bytes.NewReader(b), denom)
}

// setPipelineMin sets pipelineMinMCUs and returns its restore.
func setPipelineMin(n int) func() {
	old := pipelineMinMCUs
	pipelineMinMCUs = n
	return func() { pipelineMinMCUs = old }
}

// At 1/8 a sequential block's AC values are decoded past, not stored
// (skipAC): the pictures and the errors are those of the decode that
// stores them, on every input of the corpus, damaged ones too.
func TestAtOneEighthSkippingTheACValuesChangesNothing(t *testing.T) {
	c := corpus(t)
	for name, b := range c {
		got, gerr := decodeScaledNamed(t, name, b, 8)
		skipAC = false
		want, werr := decodeScaledNamed(t, name, b, 8)
		skipAC = true
		if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
			t.Fatalf("%s: skipping says %v, storing %v", name, gerr, werr)
		}
		if gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: skipping the AC values changed the picture", name)
		}
	}
}
