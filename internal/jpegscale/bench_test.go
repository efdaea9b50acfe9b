package jpegscale

import (
	"bytes"
	"image/jpeg"
	"math/rand"
	"sync"
	"testing"
)

// big is a 5200 × 3900 noisy photo-like JPEG at quality 90 (about 10 MiB,
// like the document package's bigJPEG), made once.
var big = sync.OnceValue(func() []byte {
	m := photo(5200, 3900)
	r := rand.New(rand.NewSource(1))
	for i := range m.Pix {
		if i%4 != 3 {
			m.Pix[i] = uint8(min(255, max(0, int(m.Pix[i])+r.Intn(50)-25)))
		}
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, m, &jpeg.Options{Quality: 90})
	return b.Bytes()
})

func benchDecode(b *testing.B, decode func([]byte) error) {
	data := big()
	b.SetBytes(int64(len(data)))
	b.ReportMetric(float64(len(data))/(1<<20), "MiB")
	for b.Loop() {
		if err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeStandardLibrary(b *testing.B) {
	benchDecode(b, func(d []byte) error { _, err := jpeg.Decode(bytes.NewReader(d)); return err })
}

func BenchmarkDecode(b *testing.B) {
	benchDecode(b, func(d []byte) error { _, err := Decode(bytes.NewReader(d)); return err })
}

func BenchmarkDecodeScaled2(b *testing.B) {
	benchDecode(b, func(d []byte) error { _, err := DecodeScaled(bytes.NewReader(d), 2); return err })
}

func BenchmarkDecodeScaled4(b *testing.B) {
	benchDecode(b, func(d []byte) error { _, err := DecodeScaled(bytes.NewReader(d), 4); return err })
}

func BenchmarkDecodeScaled8(b *testing.B) {
	benchDecode(b, func(d []byte) error { _, err := DecodeScaled(bytes.NewReader(d), 8); return err })
}
