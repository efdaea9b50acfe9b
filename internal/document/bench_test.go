package document

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"math/rand"
	"os/exec"
	"sync"
	"testing"

	xdraw "golang.org/x/image/draw"

	"github.com/trustscreen/reviewer/internal/jpegscale"
)

// bigJPEG is a 10 MiB photo-like JPEG (a card with sensor noise, 5200 ×
// 3900 pixels, about 20 megapixels), made once.
var bigJPEG = sync.OnceValue(func() []byte {
	const w, h = 5200, 3900
	m := card(w, h)
	r := rand.New(rand.NewSource(1))
	for i := range m.Pix {
		if i%4 != 3 {
			m.Pix[i] = uint8(min(255, max(0, int(m.Pix[i])+r.Intn(70)-35)))
		}
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, m, &jpeg.Options{Quality: 90})
	return b.Bytes()
})

// viewW × viewH is the viewer's picture area at 1280 × 800.
const viewW, viewH = 1240, 700

// BenchmarkFirstView is what opening the viewer on a 10 MiB JPEG costs
// before its first view is drawn: check, size check, decode (reduced to
// the view), fit.
func BenchmarkFirstView(b *testing.B) {
	data := bigJPEG()
	b.SetBytes(int64(len(data)))
	b.ReportMetric(float64(len(data))/(1<<20), "MiB")
	for b.Loop() {
		d, err := OpenView(context.Background(), JPEG, data, Limits{}, viewW, viewH)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.View(context.Background(), 0, viewW, viewH); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstViewFloor is the floor: the standard library's decode and
// golang.org/x/image/draw's bilinear scale of the same file, nothing else.
func BenchmarkFirstViewFloor(b *testing.B) {
	data := bigJPEG()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		sb := img.Bounds()
		w, h := FitSize(sb.Dx(), sb.Dy(), viewW, viewH)
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, sb, xdraw.Src, nil)
	}
}

// BenchmarkFit and its floor: the scaling alone.
func BenchmarkFit(b *testing.B) {
	img, _ := jpeg.Decode(bytes.NewReader(bigJPEG()))
	for b.Loop() {
		_, _ = Fit(context.Background(), img, viewW, viewH)
	}
}

func BenchmarkFitFloor(b *testing.B) {
	img, _ := jpeg.Decode(bytes.NewReader(bigJPEG()))
	sb := img.Bounds()
	w, h := FitSize(sb.Dx(), sb.Dy(), viewW, viewH)
	for b.Loop() {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, sb, xdraw.Src, nil)
	}
}

// BenchmarkFirstViewDecoded is opening the viewer on the 10 MiB JPEG the
// panel already shows: the preview's decoded document (reduced for the
// viewer's size) is scaled to the window, nothing is fetched or decoded
// again.
func BenchmarkFirstViewDecoded(b *testing.B) {
	d, err := OpenView(context.Background(), JPEG, bigJPEG(), Limits{}, viewW, viewH)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := d.View(context.Background(), 0, viewW, viewH); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFullResolution is a document opened reduced and then shown at
// 100 %: the reduced open and the whole decode (the fork's; the standard
// library's alone is most of BenchmarkFirstViewFloor).
func BenchmarkFullResolution(b *testing.B) {
	data := bigJPEG()
	for b.Loop() {
		d, err := OpenView(context.Background(), JPEG, data, Limits{}, viewW, viewH)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Page(context.Background(), 0); err != nil {
			b.Fatal(err)
		}
	}
}

// bigProgressiveJPEG is bigJPEG made progressive, losslessly, by
// libjpeg-turbo's jpegtran (its default script, as cjpeg -progressive and
// most cameras' "progressive" writes); nil when jpegtran is not installed
// (make bench installs libjpeg-turbo-progs).
var bigProgressiveJPEG = sync.OnceValue(func() []byte {
	cmd := exec.Command("jpegtran", "-progressive", "-copy", "none")
	cmd.Stdin = bytes.NewReader(bigJPEG())
	out, err := cmd.Output()
	if err != nil || !jpegscale.IsProgressive(bytes.NewReader(out)) {
		return nil
	}
	return out
})

func progressive(b *testing.B) []byte {
	data := bigProgressiveJPEG()
	if data == nil {
		b.Skip("jpegtran (libjpeg-turbo-progs) is not installed")
	}
	b.SetBytes(int64(len(data)))
	return data
}

// BenchmarkFirstViewProgressive is the time to the viewer's first picture
// of the progressive photo: the 1/8 picture of its first scans, upright,
// enlarged to the view (OpenViewEarly's early picture). Its target is
// half the same file's full decode, BenchmarkFullDecodeProgressive
// (scripts/firstview-check.sh). The rest of the decode is stopped, off
// the clock, before the next run.
func BenchmarkFirstViewProgressive(b *testing.B) {
	data := progressive(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		first := make(chan *image.RGBA, 1)
		done := make(chan error, 1)
		go func() {
			_, err := OpenViewEarly(ctx, JPEG, data, Limits{}, viewW, viewH, func(e Early) { first <- e.Fit })
			done <- err
		}()
		var fit *image.RGBA
		select {
		case fit = <-first:
		case err := <-done:
			b.Fatalf("no early picture: %v", err)
		}
		b.StopTimer()
		if fit.Bounds().Dx() != viewW && fit.Bounds().Dy() != viewH {
			b.Fatalf("early picture %v for a view of %d × %d", fit.Bounds(), viewW, viewH)
		}
		cancel()
		<-done
		b.StartTimer()
	}
}

// BenchmarkFirstViewProgressiveRefined is the progressive photo's first
// view refined: the whole file decoded (reduced to the view) and fitted.
func BenchmarkFirstViewProgressiveRefined(b *testing.B) {
	data := progressive(b)
	for b.Loop() {
		d, err := OpenView(context.Background(), JPEG, data, Limits{}, viewW, viewH)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.View(context.Background(), 0, viewW, viewH); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFullDecodeProgressive is the same file decoded whole.
func BenchmarkFullDecodeProgressive(b *testing.B) {
	data := progressive(b)
	for b.Loop() {
		if _, err := Open(context.Background(), JPEG, data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
