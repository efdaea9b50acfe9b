package jpegscale

import "math"

// The reduced inverse DCTs. A reduced block's pixel is the mean of the
// full block's pixels it stands for, computed from the coefficients: in one
// dimension, the mean over pixels x in [k·n, (k+1)·n) of
//
//	Σ_u C(u)/2 · F(u) · cos((2x+1)uπ/16)
//
// is Σ_u F(u) · mean[k][u], a small matrix per scale. At 1/8 only the DC
// term is left (F(0)/8 in two dimensions); at 1/4 the even coefficients
// but the DC cancel, and five of the eight remain in each dimension.

// natural maps a coefficient's natural (row-major) index to its zig-zag
// index, where the quantization table keeps it.
var natural [blockSize]int

// mean4 is the 1/4 scale's matrix: the first output pixel's weights of
// coefficients 0, 1, 3, 5 and 7 (the second's are the same with the odd
// ones negated).
var mean4 [5]float64

// odd4 are the odd coefficients the 1/4 scale uses.
var odd4 = [4]int{1, 3, 5, 7}

func init() {
	for zig, nat := range unzig {
		natural[nat] = zig
	}
	for i, u := range [5]int{0, 1, 3, 5, 7} {
		cu := 0.5
		if u == 0 {
			cu = 0.5 / math.Sqrt2
		}
		var s float64
		for x := 0; x < 4; x++ {
			s += math.Cos(float64((2*x+1)*u) * math.Pi / 16)
		}
		mean4[i] = cu * s / 4
	}
}

// clampRound level-shifts v by 128, rounds it and clips it to a byte.
func clampRound(v float64) uint8 {
	v += 128.5
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return uint8(v)
}

// reduce8 stores the 1 × 1 block: the mean of the 8 × 8, its DC term.
func reduce8(b *block, qt *block, dst []byte) {
	v := (b[0]*qt[0] + 4) >> 3
	switch {
	case v < -128:
		v = 0
	case v > 127:
		v = 255
	default:
		v += 128
	}
	dst[0] = uint8(v)
}

// reduce4 stores the 2 × 2 block from the 25 coefficients whose rows and
// columns are 0, 1, 3, 5 or 7.
func reduce4(b *block, qt *block, dst []byte, stride int) {
	// Rows: for each used vertical frequency v, the two horizontal means.
	var r [5][2]float64
	for i, v := range [5]int{0, 1, 3, 5, 7} {
		row := v * 8
		e := float64(b[row]*qt[natural[row]]) * mean4[0]
		var o float64
		for k, u := range odd4 {
			if c := b[row+u]; c != 0 {
				o += float64(c*qt[natural[row+u]]) * mean4[k+1]
			}
		}
		r[i][0], r[i][1] = e+o, e-o
	}
	for x := 0; x < 2; x++ {
		e := r[0][x] * mean4[0]
		o := r[1][x]*mean4[1] + r[2][x]*mean4[2] + r[3][x]*mean4[3] + r[4][x]*mean4[4]
		dst[x] = clampRound(e + o)
		dst[stride+x] = clampRound(e - o)
	}
}

// reduce2 stores the 4 × 4 block: the means of the 2 × 2 squares of the
// inverse DCT's pixels (each clipped first, as the full decode clips them).
func reduce2(b *block, dst []byte, stride int) {
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			i := 16*y + 2*x
			s := clip(b[i]) + clip(b[i+1]) + clip(b[i+8]) + clip(b[i+9])
			dst[y*stride+x] = uint8((s + 2) >> 2)
		}
	}
}

func clip(c int32) int32 {
	if c < -128 {
		return 0
	}
	if c > 127 {
		return 255
	}
	return c + 128
}
