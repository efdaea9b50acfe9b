package jpegscale

import "encoding/binary"

// The sequential (baseline and extended) scan's block decoder, on the bits
// at hand: a code and its value in one look-up (h.fast) when they fit in
// fastBits, else a code of up to lutSize bits (h.lut) and its value read
// inline, with the bit count held in a local between refills. It reads
// exactly the bits the general decoder (processSOS) would, symbol for
// symbol; when fewer than 32 bits are at hand after a refill (a marker is
// near, or the end of the data) it stops where it is, and the general
// decoder goes on from there.

// seqDC decodes a block's DC difference when the bits at hand hold its
// code and value: ok false leaves the bits as they were.
func (d *decoder) seqDC(h *huffman) (delta int32, ok bool) {
	if d.bits.n < 32 {
		d.refill()
		if d.bits.n < 32 {
			return 0, false
		}
	}
	a, n := d.bits.a, d.bits.n
	if e := h.fast[(a>>(uint32(n-fastBits)&63))&(1<<fastBits-1)]; e != 0 && e>>5&0xf0 == 0 {
		// A DC symbol is its value's size (0 to 15 here; 16 and more are
		// the general decoder's error).
		d.bits.n = n - int32(e&31)
		return int32(int16(e >> 16)), true
	}
	v := h.lut[(a>>(uint32(n-lutSize)&63))&(1<<lutSize-1)]
	if v == 0 || v>>8 > 15 {
		return 0, false
	}
	n -= int32(v&0xff) - 1
	t := uint32(v >> 8)
	n -= int32(t)
	s := int32(1) << t
	x := int32(a>>(uint32(n)&63)) & (s - 1)
	if x < s>>1 {
		x += ((-1) << t) + 1
	}
	d.bits.n = n
	return x, true
}

// seqAC decodes a sequential block's AC coefficients from zig on, into b
// when store (else only past them: at 1/8 a block's DC term is all that is
// read), as the general decoder does, symbol for symbol. It returns where
// it stopped, and done once the block is whole; not done when the bits at
// hand ran short (a marker is near, or the end of the data), for the
// general decoder to go on from there.
func (d *decoder) seqAC(h *huffman, b *block, zig int32, store bool) (int32, bool, error) {
	n := d.bits.n
	a := d.bits.a
	for zig < blockSize {
		if n < 32 {
			// refill's first step, inline: the next 4 to 7 bytes when
			// none of the next 8 is 0xFF.
			if i := d.bytes.i; i+8 <= d.bytes.j {
				v := binary.BigEndian.Uint64(d.bytes.buf[i : i+8])
				if x := ^v; (x-0x0101010101010101)&^x&0x8080808080808080 == 0 {
					k := min(7, (64-n)>>3)
					a = a<<(uint32(8*k)&63) | v>>(uint32(64-8*k)&63)
					n += 8 * k
					d.bytes.i = i + int(k)
					d.bytes.nUnreadable = 1
					d.bits.a = a
					goto decode
				}
			}
			d.bits.n = n
			d.refill()
			a, n = d.bits.a, d.bits.n
			if n < 32 {
				break
			}
		}
	decode:
		e := h.fast[(a>>(uint32(n-fastBits)&63))&(1<<fastBits-1)]
		if e&(0x0f<<5) != 0 {
			// A coefficient and its value in one look-up.
			z := zig + int32(e>>9&0x0f)
			if z >= blockSize {
				// Past the block: the code is read, not the value.
				d.bits.n = n - (int32(e&31) - int32(e>>5&0x0f))
				return z, true, nil
			}
			n -= int32(e & 31)
			if store {
				b[unzig[z&63]&63] = int32(int16(e >> 16))
			}
			zig = z + 1
			continue
		}
		var sym uint32
		if v := h.lut[(a>>(uint32(n-lutSize)&63))&(1<<lutSize-1)]; v != 0 {
			sym = uint32(v >> 8)
			n -= int32(v&0xff) - 1
		} else if v, l := h.long(a, n); l != 0 {
			sym = uint32(v)
			n -= l
		} else {
			// Not a code: decodeHuffman says so.
			d.bits.n = n
			v, err := d.decodeHuffman(h)
			if err != nil {
				return zig, false, err
			}
			sym, n = uint32(v), d.bits.n
		}
		run, size := sym>>4, sym&0x0f
		if size == 0 {
			if run == 0x0f { // sixteen zeros
				zig += 16
				continue
			}
			// The end of the block (run 0), or of the band: an end-of-band
			// run, which the general decoder counts for a sequential scan
			// too (a damaged file's).
			d.bits.n = n
			d.eobRun = uint16(1 << run)
			if run != 0 {
				bits, err := d.decodeBits(int32(run))
				if err != nil {
					return zig, false, err
				}
				d.eobRun |= uint16(bits)
			}
			d.eobRun--
			return zig, true, nil
		}
		z := zig + int32(run)
		if z >= blockSize {
			d.bits.n = n
			return z, true, nil
		}
		n -= int32(size)
		s := int32(1) << size
		x := int32(a>>(uint32(n)&63)) & (s - 1)
		if x < s>>1 {
			x += ((-1) << size) + 1
		}
		if store {
			b[unzig[z&63]&63] = x
		}
		zig = z + 1
	}
	d.bits.n = n
	return zig, zig >= blockSize, nil
}

// skipAC: at 1/8, a sequential block's AC values are not stored (only its
// DC term is read). The tests turn it off to compare.
var skipAC = true

// long decodes a code longer than lutSize bits from the 16 bits or more at
// hand (a, n): its symbol and length, or length 0 when it is not a code
// (or h's codes overflow, a damaged file's: decodeHuffman's business). As
// decodeHuffman's bit-by-bit path does for a well-formed code set, whose
// codes of a length are consecutive: the first length whose largest code
// is not less than the bits read.
func (h *huffman) long(a uint64, n int32) (uint8, int32) {
	if !h.canonical {
		return 0, 0
	}
	c16 := int32(a>>(uint32(n-16)&63)) & 0xffff
	for i := lutSize; i < maxCodeLength; i++ {
		code := c16 >> (maxCodeLength - 1 - i)
		if code <= h.maxCodes[i] {
			return h.vals[(h.valsIndices[i]+code-h.minCodes[i])&(maxNCodes-1)], int32(i + 1)
		}
	}
	return 0, 0
}
