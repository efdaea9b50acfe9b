package document

import "image"

// A lossy WebP (VP8) is coded in BT.601 YCbCr of limited range (luma 16 to
// 235), 4:2:0, and libwebp turns it into RGB so. golang.org/x/image/webp
// returns its planes as an *image.YCbCr, which Go reads as JFIF's full
// range: every colour comes out washed out (libwebp's red 159,31,31 read
// as 154,42,41; 29.6 dB from libwebp's decode). webpRGB converts the
// planes as libwebp does: its fixed-point coefficients (src/dsp/yuv.h) and
// its "fancy" upsampling of the chroma (9-3-3-1 from the four nearest
// samples, src/dsp/upsampling.c), which dwebp uses by default.

// webpRGB returns a lossy WebP's picture as libwebp draws it: RGBA, or
// NRGBA with its alpha plane; any other picture (a lossless WebP's) as it
// is.
func webpRGB(img image.Image) image.Image {
	var m *image.YCbCr
	var alpha []byte
	var astride int
	switch p := img.(type) {
	case *image.YCbCr:
		m = p
	case *image.NYCbCrA:
		m, alpha, astride = &p.YCbCr, p.A, p.AStride
	default:
		return img
	}
	if m.SubsampleRatio != image.YCbCrSubsampleRatio420 || m.Rect.Min != (image.Point{}) {
		return img
	}
	w, h := m.Rect.Dx(), m.Rect.Dy()
	cw, ch := (w+1)/2, (h+1)/2
	pix := make([]byte, 4*w*h)
	for y := 0; y < h; y++ {
		cy := y / 2
		// The other chroma row nearest to this one: above for an even
		// row, below for an odd one, the edge's own at the edges.
		ny := min(max(cy+(y&1)*2-1, 0), ch-1)
		cur, near := cy*m.CStride, ny*m.CStride
		yrow := m.Y[y*m.YStride:]
		out := pix[4*w*y:]
		for x := 0; x < w; x++ {
			cx := x / 2
			nx := min(max(cx+(x&1)*2-1, 0), cw-1)
			u := (9*int(m.Cb[cur+cx]) + 3*int(m.Cb[cur+nx]) + 3*int(m.Cb[near+cx]) + int(m.Cb[near+nx]) + 8) >> 4
			v := (9*int(m.Cr[cur+cx]) + 3*int(m.Cr[cur+nx]) + 3*int(m.Cr[near+cx]) + int(m.Cr[near+nx]) + 8) >> 4
			yy := mulHi(int(yrow[x]), 19077)
			o := out[4*x : 4*x+4]
			o[0] = clip8(yy + mulHi(v, 26149) - 14234)
			o[1] = clip8(yy - mulHi(u, 6419) - mulHi(v, 13320) + 8708)
			o[2] = clip8(yy + mulHi(u, 33050) - 17685)
			o[3] = 255
			if alpha != nil {
				o[3] = alpha[y*astride+x]
			}
		}
	}
	r := image.Rect(0, 0, w, h)
	if alpha != nil {
		return &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: r}
	}
	return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: r}
}

// mulHi and clip8 are libwebp's MultHi and VP8Clip8 (YUV_FIX2 = 6).
func mulHi(v, coeff int) int { return (v * coeff) >> 8 }

func clip8(v int) uint8 {
	const mask = (256 << 6) - 1
	if v&^mask == 0 {
		return uint8(v >> 6)
	}
	if v < 0 {
		return 0
	}
	return 255
}
