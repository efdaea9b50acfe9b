// Copyright 2012 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegscale

import (
	"image"
	"runtime"
)

// makeImg allocates and initializes the destination image.
func (d *decoder) makeImg(mxx, myy int) {
	// bs is a block's side in the decoded image: 8 at full size, 8/denom
	// at a reduced scale; the picture is its scaled size rounded up.
	bs := 8 >> d.shift
	w, h := d.scaledSize()
	for i := range d.cshift {
		d.cshift[i] = d.shift
	}
	if d.nComp == 1 {
		m := image.NewGray(image.Rect(0, 0, bs*mxx, bs*myy))
		d.img1 = m.SubImage(image.Rect(0, 0, w, h)).(*image.Gray)
		return
	}

	h0 := d.comp[0].h
	v0 := d.comp[0].v
	hRatio := h0 / d.comp[1].h
	vRatio := v0 / d.comp[1].v
	if d.nComp == 3 && d.shift > 0 {
		// At a reduced scale, subsampled chroma is reduced less (as
		// libjpeg does), so that it keeps the resolution it has against
		// the luma: 4:2:0 at 1/2 is 4:4:4 with chroma blocks of 8 × 8.
		k := uint(0)
		for k < d.shift && hRatio>>k > 1 && vRatio>>k > 1 {
			k++
		}
		hRatio, vRatio = hRatio>>k, vRatio>>k
		d.cshift[1], d.cshift[2] = d.shift-k, d.shift-k
	}
	d.hRatio = hRatio
	var subsampleRatio image.YCbCrSubsampleRatio
	switch hRatio<<4 | vRatio {
	case 0x11:
		subsampleRatio = image.YCbCrSubsampleRatio444
	case 0x12:
		subsampleRatio = image.YCbCrSubsampleRatio440
	case 0x21:
		subsampleRatio = image.YCbCrSubsampleRatio422
	case 0x22:
		subsampleRatio = image.YCbCrSubsampleRatio420
	case 0x41:
		subsampleRatio = image.YCbCrSubsampleRatio411
	case 0x42:
		subsampleRatio = image.YCbCrSubsampleRatio410
	default:
		panic("unreachable")
	}
	m := image.NewYCbCr(image.Rect(0, 0, bs*h0*mxx, bs*v0*myy), subsampleRatio)
	d.img3 = m.SubImage(image.Rect(0, 0, w, h)).(*image.YCbCr)

	if d.nComp == 4 {
		h3, v3 := d.comp[3].h, d.comp[3].v
		d.blackPix = make([]byte, bs*h3*mxx*bs*v3*myy)
		d.blackStride = bs * h3 * mxx
	}
}

// Specified in section B.2.3.
func (d *decoder) processSOS(n int) error {
	if d.nComp == 0 {
		return FormatError("missing SOF marker")
	}
	if n < 6 || 4+2*d.nComp < n || n%2 != 0 {
		return FormatError("SOS has wrong length")
	}
	if err := d.readFull(d.tmp[:n]); err != nil {
		return err
	}
	nComp := int(d.tmp[0])
	if n != 4+2*nComp {
		return FormatError("SOS length inconsistent with number of components")
	}
	var scan [maxComponents]struct {
		compIndex uint8
		td        uint8 // DC table selector.
		ta        uint8 // AC table selector.
	}
	totalHV := 0
	for i := 0; i < nComp; i++ {
		cs := d.tmp[1+2*i] // Component selector.
		compIndex := -1
		for j, comp := range d.comp[:d.nComp] {
			if cs == comp.c {
				compIndex = j
			}
		}
		if compIndex < 0 {
			return FormatError("unknown component selector")
		}
		scan[i].compIndex = uint8(compIndex)
		// Section B.2.3 states that "the value of Cs_j shall be different from
		// the values of Cs_1 through Cs_(j-1)". Since we have previously
		// verified that a frame's component identifiers (C_i values in section
		// B.2.2) are unique, it suffices to check that the implicit indexes
		// into d.comp are unique.
		for j := 0; j < i; j++ {
			if scan[i].compIndex == scan[j].compIndex {
				return FormatError("repeated component selector")
			}
		}
		totalHV += d.comp[compIndex].h * d.comp[compIndex].v

		// The baseline t <= 1 restriction is specified in table B.3.
		scan[i].td = d.tmp[2+2*i] >> 4
		if t := scan[i].td; t > maxTh || (d.baseline && t > 1) {
			return FormatError("bad Td value")
		}
		scan[i].ta = d.tmp[2+2*i] & 0x0f
		if t := scan[i].ta; t > maxTh || (d.baseline && t > 1) {
			return FormatError("bad Ta value")
		}
		// A table the file never defined: a Motion-JPEG frame's,
		// coded with the standard ones.
		d.useStdHuffman(dcTable, scan[i].td)
		d.useStdHuffman(acTable, scan[i].ta)
	}
	// Section B.2.3 states that if there is more than one component then the
	// total H*V values in a scan must be <= 10.
	if d.nComp > 1 && totalHV > 10 {
		return FormatError("total sampling factors too large")
	}

	// zigStart and zigEnd are the spectral selection bounds.
	// ah and al are the successive approximation high and low values.
	// The spec calls these values Ss, Se, Ah and Al.
	//
	// For progressive JPEGs, these are the two more-or-less independent
	// aspects of progression. Spectral selection progression is when not
	// all of a block's 64 DCT coefficients are transmitted in one pass.
	// For example, three passes could transmit coefficient 0 (the DC
	// component), coefficients 1-5, and coefficients 6-63, in zig-zag
	// order. Successive approximation is when not all of the bits of a
	// band of coefficients are transmitted in one pass. For example,
	// three passes could transmit the 6 most significant bits, followed
	// by the second-least significant bit, followed by the least
	// significant bit.
	//
	// For sequential JPEGs, these parameters are hard-coded to 0/63/0/0, as
	// per table B.3.
	zigStart, zigEnd, ah, al := int32(0), int32(blockSize-1), uint32(0), uint32(0)
	if d.progressive {
		zigStart = int32(d.tmp[1+2*nComp])
		zigEnd = int32(d.tmp[2+2*nComp])
		ah = uint32(d.tmp[3+2*nComp] >> 4)
		al = uint32(d.tmp[3+2*nComp] & 0x0f)
		if (zigStart == 0 && zigEnd != 0) || zigStart > zigEnd || blockSize <= zigEnd {
			return FormatError("bad spectral selection bounds")
		}
		if zigStart != 0 && nComp != 1 {
			return FormatError("progressive AC coefficients for more than one component")
		}
		if ah != 0 && ah != al+1 {
			return FormatError("bad successive approximation values")
		}
	}

	// mxx and myy are the number of MCUs (Minimum Coded Units) in the image.
	h0, v0 := d.comp[0].h, d.comp[0].v // The h and v values from the Y components.
	mxx := (d.width + 8*h0 - 1) / (8 * h0)
	myy := (d.height + 8*v0 - 1) / (8 * v0)
	// The work the scans ask for, counted before this one runs: each is a
	// pass over the blocks of its components (maxBlockVisits).
	for i := 0; i < nComp; i++ {
		c := d.comp[scan[i].compIndex]
		d.visits += mxx * myy * c.h * c.v
	}
	if d.visits > maxBlockVisits {
		return errTooMuchWork
	}
	if d.img1 == nil && d.img3 == nil {
		d.makeImg(mxx, myy)
	}
	// dcFirst: a first DC scan of components that have had no other kind
	// yet, decoded into progDC alone.
	dcFirst := d.progressive && zigStart == 0 && ah == 0
	if d.progressive {
		for i := 0; i < nComp; i++ {
			if d.progCoeffs[scan[i].compIndex] != nil {
				dcFirst = false
			}
		}
		for i := 0; i < nComp; i++ {
			compIndex := scan[i].compIndex
			n := mxx * myy * d.comp[compIndex].h * d.comp[compIndex].v
			if dcFirst {
				if d.progDC[compIndex] == nil {
					d.progDC[compIndex] = make([]int32, n)
				}
				continue
			}
			d.coeffs(int(compIndex), n)
		}
	}

	// A large sequential scan reconstructs its blocks (dequantization,
	// inverse DCT, store) on a second goroutine while this one decodes the
	// entropy-coded data: two cores, nearly half the time.
	var pipe *pipeline
	// At 1/8 a luma block's reconstruction is its DC term scaled
	// (reduce8), and handing blocks over costs more than it saves: 10 %
	// more CPU for a 24-megapixel photo, so not pipelined (but in the
	// tests, which pipeline every scan).
	if !d.progressive && mxx*myy >= pipelineMinMCUs && runtime.GOMAXPROCS(0) > 1 && (d.shift < 3 || pipelineMinMCUs == 1) {
		pipe = d.startPipeline()
		defer pipe.finish()
	}

	d.bits = bits{}
	expectedRST := uint8(rst0Marker)
	var (
		// b is the decoded coefficients, in natural (not zig-zag) order.
		b block
		// bp is the block decoded into: b, or a progressive file's
		// saved coefficients themselves (not copied in and out).
		bp *block
		dc [maxComponents]int32
		// bx and by are the location of the current block, in units of 8x8
		// blocks: the third block in the first row has (bx, by) = (2, 0).
		bx, by     int
		blockCount int
	)
	// The restart interval counts MCUs, and the MCU of a non-interleaved
	// scan (one component) is one block of it (section A.2.2): in a 4:2:0
	// picture, a luma scan has four for each MCU of an interleaved scan,
	// and only those within the picture are coded. (The standard library
	// counts the interleaved MCUs, and so calls a sound file whose
	// non-interleaved scans have restart markers damaged: image-rs's
	// non-interleaved-mcu.jpg.)
	units, totalUnits := 0, mxx*myy
	if nComp == 1 {
		c := d.comp[scan[0].compIndex]
		totalUnits = min(mxx*c.h, (d.width+7)/8) * min(myy*c.v, (d.height+7)/8)
	}
	restart := func() error {
		units++
		if d.ri == 0 || units%d.ri != 0 || units >= totalUnits {
			return nil
		}
		// For well-formed input, the RST[0-7] restart marker follows
		// immediately. For corrupt input, call findRST to try to
		// resynchronize.
		if err := d.readFull(d.tmp[:2]); err != nil {
			return err
		} else if d.tmp[0] != 0xff || d.tmp[1] != expectedRST {
			if err := d.findRST(expectedRST); err != nil {
				return err
			}
		}
		expectedRST++
		if expectedRST == rst7Marker+1 {
			expectedRST = rst0Marker
		}
		// Reset the Huffman decoder.
		d.bits = bits{}
		// Reset the DC components, as per section F.2.1.3.1.
		dc = [maxComponents]int32{}
		// Reset the progressive decoder state, as per section G.1.2.2.
		d.eobRun = 0
		return nil
	}
	for my := 0; my < myy; my++ {
		for mx := 0; mx < mxx; mx++ {
			for i := 0; i < nComp; i++ {
				compIndex := scan[i].compIndex
				hi := d.comp[compIndex].h
				vi := d.comp[compIndex].v
				for j := 0; j < hi*vi; j++ {
					// The blocks are traversed one MCU at a time. For 4:2:0 chroma
					// subsampling, there are four Y 8x8 blocks in every 16x16 MCU.
					//
					// For a sequential 32x16 pixel image, the Y blocks visiting order is:
					//	0 1 4 5
					//	2 3 6 7
					//
					// For progressive images, the interleaved scans (those with nComp > 1)
					// are traversed as above, but non-interleaved scans are traversed left
					// to right, top to bottom:
					//	0 1 2 3
					//	4 5 6 7
					// Only DC scans (zigStart == 0) can be interleaved. AC scans must have
					// only one component.
					//
					// To further complicate matters, for non-interleaved scans, there is no
					// data for any blocks that are inside the image at the MCU level but
					// outside the image at the pixel level. For example, a 24x16 pixel 4:2:0
					// progressive image consists of two 16x16 MCUs. The interleaved scans
					// will process 8 Y blocks:
					//	0 1 4 5
					//	2 3 6 7
					// The non-interleaved scans will process only 6 Y blocks:
					//	0 1 2
					//	3 4 5
					if nComp != 1 {
						bx = hi*mx + j%hi
						by = vi*my + j/hi
					} else {
						q := mxx * hi
						bx = blockCount % q
						by = blockCount / q
						blockCount++
						if bx*8 >= d.width || by*8 >= d.height {
							continue
						}
					}

					// Load the previous partially decoded coefficients, if applicable.
					if dcFirst {
						b[0] = 0
						bp = &b
					} else if d.progressive {
						bp = &d.progCoeffs[compIndex][by*mxx*hi+bx]
					} else {
						if d.cshift[compIndex] < 3 {
							b = block{}
						} // else only b[0] is read (reduce8), and it is always decoded
						bp = &b
					}

					if ah != 0 {
						if err := d.refine(bp, &d.huff[acTable][scan[i].ta], zigStart, zigEnd, 1<<al); err != nil {
							return err
						}
					} else {
						zig := zigStart
						if zig == 0 {
							zig++
							// Decode the DC coefficient, as specified in section F.2.2.1.
							var dcDelta int32
							ok := false
							if !d.progressive {
								dcDelta, ok = d.seqDC(&d.huff[dcTable][scan[i].td])
							}
							if !ok {
								value, err := d.decodeHuffman(&d.huff[dcTable][scan[i].td])
								if err != nil {
									return err
								}
								if value > 16 {
									return UnsupportedError("excessive DC component")
								}
								if dcDelta, err = d.receiveExtend(value); err != nil {
									return err
								}
							}
							dc[compIndex] += dcDelta
							bp[0] = dc[compIndex] << al
						}

						if zig <= zigEnd && d.eobRun > 0 {
							d.eobRun--
						} else {
							// Decode the AC coefficients, as specified in section F.2.2.2.
							huff := &d.huff[acTable][scan[i].ta]
							if !d.progressive {
								// At 1/8 a block's AC values are decoded to
								// stay in step, not stored: only its DC term
								// is read (reduce8).
								var done bool
								var err error
								if zig, done, err = d.seqAC(huff, bp, zig, d.cshift[compIndex] < 3 || !skipAC); err != nil {
									return err
								} else if done {
									zig = zigEnd + 1
								}
							}
							for ; zig <= zigEnd; zig++ {
								if d.bits.n < 32 {
									d.refill()
								}
								if d.bits.n >= 32 {
									// The fastest path: a short code and its
									// coefficient in one look-up.
									if e := huff.fast[(d.bits.a>>uint32(d.bits.n-fastBits))&(1<<fastBits-1)]; e != 0 && e>>5&0x0f != 0 {
										zig += int32(e >> 9 & 0x0f)
										if zig > zigEnd {
											// Past the band: as the standard
											// library, the code is read, not
											// the value.
											d.bits.n -= int32(e&31) - int32(e>>5&0x0f)
											break
										}
										d.bits.n -= int32(e & 31)
										bp[unzig[zig]] = int32(int16(e>>16)) << al
										continue
									}
								}
								var value uint8
								if v := huff.lut[(d.bits.a>>uint32(d.bits.n-lutSize))&(1<<lutSize-1)]; d.bits.n >= 32 && v != 0 {
									// The fast path: a short code, and 16 bits
									// or more left for its value.
									d.bits.n -= int32(v&0xff) - 1
									value = uint8(v >> 8)
								} else {
									var err error
									if value, err = d.decodeHuffman(huff); err != nil {
										return err
									}
								}
								val0 := value >> 4
								val1 := value & 0x0f
								if val1 != 0 {
									zig += int32(val0)
									if zig > zigEnd {
										break
									}
									var ac int32
									if t := int32(val1); d.bits.n >= t {
										// receiveExtend, inline.
										d.bits.n -= t
										s := int32(1) << t
										ac = int32(d.bits.a>>uint32(d.bits.n)) & (s - 1)
										if ac < s>>1 {
											ac += ((-1) << t) + 1
										}
									} else {
										var err error
										if ac, err = d.receiveExtend(val1); err != nil {
											return err
										}
									}
									bp[unzig[zig]] = ac << al
								} else {
									if val0 != 0x0f {
										d.eobRun = uint16(1 << val0)
										if val0 != 0 {
											bits, err := d.decodeBits(int32(val0))
											if err != nil {
												return err
											}
											d.eobRun |= uint16(bits)
										}
										d.eobRun--
										break
									}
									zig += 0x0f
								}
							}
						}
					}

					if nComp == 1 {
						// The block is decoded (b holds it): a restart
						// marker may follow it.
						if err := restart(); err != nil {
							return err
						}
					}
					if dcFirst {
						d.progDC[compIndex][by*mxx*hi+bx] = b[0]
						continue
					}
					if d.progressive {
						// The coefficients were decoded in place (bp).
						// At this point, we could call reconstructBlock to dequantize and perform the
						// inverse DCT, to save early stages of a progressive image to the *image.YCbCr
						// buffers (the whole point of progressive encoding), but in Go, the jpeg.Decode
						// function does not return until the entire image is decoded, so we "continue"
						// here to avoid wasted computation. Instead, reconstructBlock is called on each
						// accumulated block by the reconstructProgressiveImage method after all of the
						// SOS markers are processed.
						continue
					}
					if pipe != nil {
						pipe.add(bp, bx, by, compIndex)
						continue
					}
					if err := d.reconstructBlock(bp, bx, by, int(compIndex)); err != nil {
						return err
					}
				} // for j
			} // for i
			if nComp != 1 {
				if err := restart(); err != nil {
					return err
				}
			}
		} // for mx
		if pipe != nil {
			pipe.flush()
		}
	} // for my

	if pipe != nil {
		return pipe.finish()
	}
	if d.progressive && d.early != nil && zigStart == 0 && ah == 0 {
		for i := 0; i < nComp; i++ {
			d.earlyDC[scan[i].compIndex] = true
		}
		d.handEarly()
	}
	return nil
}

// handEarly hands d.early the DC picture once every component has had its
// first DC scan (section G.1.1.1: the DC coefficients, less the low bits
// refined later), and only once.
func (d *decoder) handEarly() {
	for i := 0; i < d.nComp; i++ {
		if !d.earlyDC[i] {
			return
		}
	}
	early := d.early
	d.early = nil
	if img := d.dcPicture(); img != nil {
		early(img)
	}
}

// dcPicture is the picture of the progressive coefficients' DC terms: one
// pixel for each block (reduce8), a component's blocks as subsampled as
// in the file. Nil for four components, and for a picture stored as RGB.
func (d *decoder) dcPicture() image.Image {
	w, h := (d.width+7)/8, (d.height+7)/8
	h0 := d.comp[0].h
	mxx := (d.width + 8*h0 - 1) / (8 * h0)
	plane := func(i int, dst []byte, stride, pw, ph int) {
		qt := &d.quant[d.comp[i].tq]
		bstride := mxx * d.comp[i].h
		coeffs, dcs := d.progCoeffs[i], d.progDC[i]
		var b block
		for by := 0; by < ph; by++ {
			for bx := 0; bx < pw; bx++ {
				if coeffs != nil {
					b[0] = coeffs[by*bstride+bx][0]
				} else {
					b[0] = dcs[by*bstride+bx]
				}
				reduce8(&b, qt, dst[by*stride+bx:])
			}
		}
	}
	switch {
	case d.nComp == 1:
		m := image.NewGray(image.Rect(0, 0, w, h))
		plane(0, m.Pix, m.Stride, w, h)
		return m
	case d.nComp == 3 && !d.isRGB():
		var ratio image.YCbCrSubsampleRatio
		switch (d.comp[0].h/d.comp[1].h)<<4 | d.comp[0].v/d.comp[1].v {
		case 0x11:
			ratio = image.YCbCrSubsampleRatio444
		case 0x12:
			ratio = image.YCbCrSubsampleRatio440
		case 0x21:
			ratio = image.YCbCrSubsampleRatio422
		case 0x22:
			ratio = image.YCbCrSubsampleRatio420
		case 0x41:
			ratio = image.YCbCrSubsampleRatio411
		case 0x42:
			ratio = image.YCbCrSubsampleRatio410
		default:
			return nil
		}
		m := image.NewYCbCr(image.Rect(0, 0, w, h), ratio)
		plane(0, m.Y, m.YStride, w, h)
		cw, ch := m.CStride, len(m.Cb)/max(1, m.CStride)
		plane(1, m.Cb, m.CStride, cw, ch)
		plane(2, m.Cr, m.CStride, cw, ch)
		return m
	}
	return nil
}

// refine decodes a successive approximation refinement block, as specified in
// section G.1.2.
func (d *decoder) refine(b *block, h *huffman, zigStart, zigEnd, delta int32) error {
	// Refining a DC component is trivial.
	if zigStart == 0 {
		if zigEnd != 0 {
			panic("unreachable")
		}
		bit, err := d.decodeBit()
		if err != nil {
			return err
		}
		if bit {
			b[0] |= delta
		}
		return nil
	}

	// Refining AC components is more complicated; see sections G.1.2.2 and G.1.2.3.
	zig := zigStart
	if d.eobRun == 0 {
	loop:
		for ; zig <= zigEnd; zig++ {
			z := int32(0)
			value, err := d.decodeHuffman(h)
			if err != nil {
				return err
			}
			val0 := value >> 4
			val1 := value & 0x0f

			switch val1 {
			case 0:
				if val0 != 0x0f {
					d.eobRun = uint16(1 << val0)
					if val0 != 0 {
						bits, err := d.decodeBits(int32(val0))
						if err != nil {
							return err
						}
						d.eobRun |= uint16(bits)
					}
					break loop
				}
			case 1:
				z = delta
				bit, err := d.decodeBit()
				if err != nil {
					return err
				}
				if !bit {
					z = -z
				}
			default:
				return FormatError("unexpected Huffman code")
			}

			zig, err = d.refineNonZeroes(b, zig, zigEnd, int32(val0), delta)
			if err != nil {
				return err
			}
			if zig > zigEnd {
				return FormatError("too many coefficients")
			}
			if z != 0 {
				b[unzig[zig]] = z
			}
		}
	}
	if d.eobRun > 0 {
		d.eobRun--
		if _, err := d.refineNonZeroes(b, zig, zigEnd, -1, delta); err != nil {
			return err
		}
	}
	return nil
}

// refineNonZeroes refines non-zero entries of b in zig-zag order. If nz >= 0,
// the first nz zero entries are skipped over.
func (d *decoder) refineNonZeroes(b *block, zig, zigEnd, nz, delta int32) (int32, error) {
	for ; zig <= zigEnd; zig++ {
		u := unzig[zig]
		if b[u] == 0 {
			if nz == 0 {
				break
			}
			nz--
			continue
		}
		bit, err := d.decodeBit()
		if err != nil {
			return 0, err
		}
		if !bit {
			continue
		}
		if b[u] >= 0 {
			b[u] += delta
		} else {
			b[u] -= delta
		}
	}
	return zig, nil
}

// coeffs makes component i's progressive coefficients (n blocks) when it
// has none yet, from its DC terms so far (progDC), which it then drops.
func (d *decoder) coeffs(i, n int) {
	if d.progCoeffs[i] != nil {
		return
	}
	d.progCoeffs[i] = make([]block, n)
	if dcs := d.progDC[i]; dcs != nil {
		for k, v := range dcs {
			d.progCoeffs[i][k][0] = v
		}
		d.progDC[i] = nil
	}
}

func (d *decoder) reconstructProgressiveImage() error {
	// The h0, mxx, by and bx variables have the same meaning as in the
	// processSOS method.
	h0 := d.comp[0].h
	mxx := (d.width + 8*h0 - 1) / (8 * h0)
	for i := 0; i < d.nComp; i++ {
		if d.progDC[i] != nil {
			d.coeffs(i, len(d.progDC[i])) // its scans were all first DC scans
		}
		if d.progCoeffs[i] == nil {
			continue
		}
		v := 8 * d.comp[0].v / d.comp[i].v
		h := 8 * d.comp[0].h / d.comp[i].h
		stride := mxx * d.comp[i].h
		for by := 0; by*v < d.height; by++ {
			for bx := 0; bx*h < d.width; bx++ {
				if err := d.reconstructBlock(&d.progCoeffs[i][by*stride+bx], bx, by, i); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// reconstructBlock dequantizes, performs the inverse DCT and stores the block
// to the image: 8 × 8 pixels, or 8/denom × 8/denom at a reduced scale.
func (d *decoder) reconstructBlock(b *block, bx, by, compIndex int) error {
	qt := &d.quant[d.comp[compIndex].tq]
	shift := d.cshift[compIndex]
	bs := 8 >> shift
	dst, stride := []byte(nil), 0
	if d.nComp == 1 {
		dst, stride = d.img1.Pix[bs*(by*d.img1.Stride+bx):], d.img1.Stride
	} else {
		switch compIndex {
		case 0:
			dst, stride = d.img3.Y[bs*(by*d.img3.YStride+bx):], d.img3.YStride
		case 1:
			dst, stride = d.img3.Cb[bs*(by*d.img3.CStride+bx):], d.img3.CStride
		case 2:
			dst, stride = d.img3.Cr[bs*(by*d.img3.CStride+bx):], d.img3.CStride
		case 3:
			dst, stride = d.blackPix[bs*(by*d.blackStride+bx):], d.blackStride
		default:
			return UnsupportedError("too many components")
		}
	}
	switch shift {
	case 2:
		reduce4(b, qt, dst, stride)
		return nil
	case 3:
		reduce8(b, qt, dst)
		return nil
	}
	for zig := 0; zig < blockSize; zig++ {
		b[unzig[zig]] *= qt[zig]
	}
	idct(b)
	if shift == 1 {
		reduce2(b, dst, stride)
		return nil
	}
	// Level shift by +128, clip to [0, 255], and write to dst.
	for y := 0; y < 8; y++ {
		y8 := y * 8
		yStride := y * stride
		for x := 0; x < 8; x++ {
			c := b[y8+x]
			if c < -128 {
				c = 0
			} else if c > 127 {
				c = 255
			} else {
				c += 128
			}
			dst[yStride+x] = uint8(c)
		}
	}
	return nil
}

// findRST advances past the next RST restart marker that matches expectedRST.
// Other than I/O errors, it is also an error if we encounter an {0xFF, M}
// two-byte marker sequence where M is not 0x00, 0xFF or the expectedRST.
//
// This is similar to libjpeg's jdmarker.c's next_marker function.
// https://github.com/libjpeg-turbo/libjpeg-turbo/blob/2dfe6c0fe9e18671105e94f7cbf044d4a1d157e6/jdmarker.c#L892-L935
//
// Precondition: d.tmp[:2] holds the next two bytes of JPEG-encoded input
// (input in the d.readFull sense).
func (d *decoder) findRST(expectedRST uint8) error {
	for {
		// i is the index such that, at the bottom of the loop, we read 2-i
		// bytes into d.tmp[i:2], maintaining the invariant that d.tmp[:2]
		// holds the next two bytes of JPEG-encoded input. It is either 0 or 1,
		// so that each iteration advances by 1 or 2 bytes (or returns).
		i := 0

		if d.tmp[0] == 0xff {
			if d.tmp[1] == expectedRST {
				return nil
			} else if d.tmp[1] == 0xff {
				i = 1
			} else if d.tmp[1] != 0x00 {
				// libjpeg's jdmarker.c's jpeg_resync_to_restart does something
				// fancy here, treating RST markers within two (modulo 8) of
				// expectedRST differently from RST markers that are 'more
				// distant'. Until we see evidence that recovering from such
				// cases is frequent enough to be worth the complexity, we take
				// a simpler approach for now. Any marker that's not 0x00, 0xff
				// or expectedRST is a fatal FormatError.
				return FormatError("bad RST marker")
			}

		} else if d.tmp[1] == 0xff {
			d.tmp[0] = 0xff
			i = 1
		}

		if err := d.readFull(d.tmp[i:2]); err != nil {
			return err
		}
	}
}
