package document

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"runtime"
	"sync"
)

// FitSize is the largest size with w:h's proportions within maxW × maxH,
// never larger than w × h (a small picture is not blown up here: the view
// does that, if asked).
func FitSize(w, h, maxW, maxH int) (int, int) {
	if w <= 0 || h <= 0 || maxW <= 0 || maxH <= 0 {
		return 0, 0
	}
	if w <= maxW && h <= maxH {
		return w, h
	}
	// Compare w/maxW with h/maxH without floating point.
	if int64(w)*int64(maxH) >= int64(h)*int64(maxW) {
		return maxW, max(1, int(int64(h)*int64(maxW)/int64(w)))
	}
	return max(1, int(int64(w)*int64(maxH)/int64(h))), maxH
}

// taps is how many samples per side one output pixel averages at most: a
// box filter thinned to 3 × 3 samples keeps a large reduction free of
// aliasing at a fixed cost per output pixel, whatever the input's size.
const taps = 3

// Fit scales img down to fit within maxW × maxH (keeping proportions; never
// up) into a new RGBA picture, with an area average. It uses every core,
// and stops early (returning ctx's error) when ctx is done: the window runs
// it off its UI goroutine and drops it when the reviewer moves on.
func Fit(ctx context.Context, img image.Image, maxW, maxH int) (*image.RGBA, error) {
	b := img.Bounds()
	tw, th := FitSize(b.Dx(), b.Dy(), maxW, maxH)
	return scaleTo(ctx, img, tw, th)
}

// scaleTo is Fit to tw × th exactly (a reduced decode is scaled to the
// size the whole picture fits to).
func scaleTo(ctx context.Context, img image.Image, tw, th int) (*image.RGBA, error) {
	b := img.Bounds()
	if tw == 0 {
		return image.NewRGBA(image.Rect(0, 0, 0, 0)), nil
	}
	dst := image.NewRGBA(image.Rect(0, 0, tw, th))
	row := func(y int) { scaleRow(dst, sampler(img), b, tw, th, y) }
	if m, ok := img.(*image.YCbCr); ok {
		// A JPEG: average the planes, convert once per output pixel.
		cols := columnTaps(m, tw)
		row = func(y int) { scaleRowYCbCr(dst, m, cols, th, y) }
	} else if _, ok := img.(*image.RGBA); !ok {
		rgba := RGBA(img)
		row = func(y int) { scaleRow(dst, sampler(rgba), b, tw, th, y) }
	}
	workers := min(runtime.GOMAXPROCS(0), th)
	var wg sync.WaitGroup
	var stopped bool
	var mu sync.Mutex
	rowsPer := (th + workers - 1) / workers
	for w := 0; w < workers; w++ {
		y0, y1 := w*rowsPer, min(th, (w+1)*rowsPer)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for y := y0; y < y1; y++ {
				if y%32 == 0 && ctx.Err() != nil {
					mu.Lock()
					stopped = true
					mu.Unlock()
					return
				}
				row(y)
			}
		}()
	}
	wg.Wait()
	if stopped {
		return nil, ctx.Err()
	}
	return dst, nil
}

// scaleRow fills output row y: each output pixel averages up to taps × taps
// source pixels evenly spread over the box it covers.
func scaleRow(dst *image.RGBA, src func(x, y int) (r, g, b, a uint32), sb image.Rectangle, tw, th, y int) {
	sw, sh := sb.Dx(), sb.Dy()
	sy0, sy1 := y*sh/th, (y+1)*sh/th
	if sy1 <= sy0 {
		sy1 = sy0 + 1
	}
	ny := min(taps, sy1-sy0)
	row := dst.Pix[y*dst.Stride : y*dst.Stride+tw*4]
	for x := 0; x < tw; x++ {
		sx0, sx1 := x*sw/tw, (x+1)*sw/tw
		if sx1 <= sx0 {
			sx1 = sx0 + 1
		}
		nx := min(taps, sx1-sx0)
		var r, g, bl, a uint32
		for j := 0; j < ny; j++ {
			yy := sb.Min.Y + sy0 + (2*j+1)*(sy1-sy0)/(2*ny)
			for i := 0; i < nx; i++ {
				xx := sb.Min.X + sx0 + (2*i+1)*(sx1-sx0)/(2*nx)
				pr, pg, pb, pa := src(xx, yy)
				r, g, bl, a = r+pr, g+pg, bl+pb, a+pa
			}
		}
		n := uint32(nx * ny)
		o := row[x*4 : x*4+4 : x*4+4]
		o[0], o[1], o[2], o[3] = uint8(r/n), uint8(g/n), uint8(bl/n), uint8(a/n)
	}
}

// span returns the taps of output pixel (or row) i of n over a source
// length of s starting at o: first sample, step numerator, count.
func tapsOf(i, n, s, o int, out *[taps]int) int {
	s0, s1 := i*s/n, (i+1)*s/n
	if s1 <= s0 {
		s1 = s0 + 1
	}
	k := min(taps, s1-s0)
	for j := 0; j < k; j++ {
		out[j] = o + s0 + (2*j+1)*(s1-s0)/(2*k)
	}
	return k
}

func scaleRowYCbCr(dst *image.RGBA, m *image.YCbCr, cols []colTaps, th, y int) {
	sb := m.Rect
	var ys [taps]int
	ny := tapsOf(y, th, sb.Dy(), sb.Min.Y, &ys)
	tw := len(cols)
	row := dst.Pix[y*dst.Stride : y*dst.Stride+tw*4]
	var yo, co [taps]int // row offsets into the planes
	for j := 0; j < ny; j++ {
		yo[j] = (ys[j] - sb.Min.Y) * m.YStride
		co[j] = m.COffset(sb.Min.X, ys[j])
	}
	for x := 0; x < tw; x++ {
		c := &cols[x]
		var sy, scb, scr uint32
		for j := 0; j < ny; j++ {
			yrow, crow := m.Y[yo[j]:], co[j]
			for i := 0; i < c.n; i++ {
				sy += uint32(yrow[c.y[i]])
				ci := crow + c.c[i]
				scb += uint32(m.Cb[ci])
				scr += uint32(m.Cr[ci])
			}
		}
		n := uint32(c.n * ny)
		r, g, b := color.YCbCrToRGB(uint8(sy/n), uint8(scb/n), uint8(scr/n))
		o := row[x*4 : x*4+4 : x*4+4]
		o[0], o[1], o[2], o[3] = r, g, b, 255
	}
}

// colTaps are an output column's taps: offsets into a Y row and (from the
// row's first chroma sample) into a chroma row.
type colTaps struct {
	n    int
	y, c [taps]int
}

func columnTaps(m *image.YCbCr, tw int) []colTaps {
	sb := m.Rect
	cols := make([]colTaps, tw)
	var xs [taps]int
	for x := range cols {
		n := tapsOf(x, tw, sb.Dx(), sb.Min.X, &xs)
		cols[x].n = n
		for i := 0; i < n; i++ {
			cols[x].y[i] = xs[i] - sb.Min.X
			cols[x].c[i] = m.COffset(xs[i], sb.Min.Y) - m.COffset(sb.Min.X, sb.Min.Y)
		}
	}
	return cols
}

// sampler returns a fast reader of 8-bit premultiplied RGBA for the common
// decoded types, and a converted copy for the rest.
func sampler(img image.Image) func(x, y int) (r, g, b, a uint32) {
	switch m := img.(type) {
	case *image.YCbCr:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			yi, ci := m.YOffset(x, y), m.COffset(x, y)
			r, g, b := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			return uint32(r), uint32(g), uint32(b), 255
		}
	case *image.RGBA:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			p := m.Pix[m.PixOffset(x, y):]
			return uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3])
		}
	case *image.Gray:
		return func(x, y int) (uint32, uint32, uint32, uint32) {
			v := uint32(m.Pix[m.PixOffset(x, y)])
			return v, v, v, 255
		}
	}
	b := img.Bounds()
	rgba := image.NewRGBA(b)
	draw.Draw(rgba, b, img, b.Min, draw.Src)
	return sampler(rgba)
}

// RGBA returns img as an *image.RGBA (itself when it is one).
func RGBA(img image.Image) *image.RGBA {
	if m, ok := img.(*image.RGBA); ok {
		return m
	}
	b := img.Bounds()
	rgba := image.NewRGBA(b)
	draw.Draw(rgba, b, img, b.Min, draw.Src)
	return rgba
}

// enlarge is img scaled to tw × th, bilinearly where that is larger than
// img (a progressive JPEG's early 1/8 picture, drawn at the size of the
// view: smooth, not blocks), else as scaleTo.
func enlarge(ctx context.Context, img image.Image, tw, th int) (*image.RGBA, error) {
	b := img.Bounds()
	if tw <= b.Dx() || th <= b.Dy() || b.Dx() < 2 || b.Dy() < 2 {
		return scaleTo(ctx, img, tw, th)
	}
	src := RGBA(img)
	dst := image.NewRGBA(image.Rect(0, 0, tw, th))
	sw, sh := b.Dx(), b.Dy()
	// Source coordinates in 1/256ths: pixel centres mapped onto centres.
	xs := make([]int, tw)
	for x := range xs {
		xs[x] = min(max(((2*x+1)*sw*256/tw-256)/2, 0), (sw-1)*256-1)
	}
	for y := 0; y < th; y++ {
		if y%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		fy := min(max(((2*y+1)*sh*256/th-256)/2, 0), (sh-1)*256-1)
		y0, wy := fy>>8, fy&255
		r0 := src.Pix[y0*src.Stride:]
		r1 := src.Pix[(y0+1)*src.Stride:]
		row := dst.Pix[y*dst.Stride : y*dst.Stride+tw*4]
		for x, fx := range xs {
			x0, wx := (fx>>8)*4, fx&255
			o := row[x*4 : x*4+4 : x*4+4]
			for k := 0; k < 3; k++ {
				top := int(r0[x0+k])*(256-wx) + int(r0[x0+4+k])*wx
				bot := int(r1[x0+k])*(256-wx) + int(r1[x0+4+k])*wx
				o[k] = uint8((top*(256-wy) + bot*wy + 1<<15) >> 16)
			}
			o[3] = 255
		}
	}
	return dst, nil
}
