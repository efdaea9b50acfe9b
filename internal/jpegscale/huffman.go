// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package jpegscale

import (
	"encoding/binary"
	"io"
)

// maxCodeLength is the maximum (inclusive) number of bits in a Huffman code.
const maxCodeLength = 16

// maxNCodes is the maximum (inclusive) number of codes in a Huffman tree.
const maxNCodes = 256

// lutSize is the log-2 size of the Huffman decoder's look-up table.
const lutSize = 8

// huffman is a Huffman decoder, specified in section C.
type huffman struct {
	// length is the number of codes in the tree.
	nCodes int32
	// lut is the look-up table for the next lutSize bits in the bit-stream.
	// The high 8 bits of the uint16 are the encoded value. The low 8 bits
	// are 1 plus the code length, or 0 if the value is too large to fit in
	// lutSize bits.
	lut [1 << lutSize]uint16
	// fast decodes a short code and its value bits in one look-up
	// (buildFast).
	fast [1 << fastBits]uint32
	// canonical: the code set does not overflow (buildFast), and h.long
	// may decode its long codes.
	canonical bool
	// vals are the decoded values, sorted by their encoding.
	vals [maxNCodes]uint8
	// minCodes[i] is the minimum code of length i, or -1 if there are no
	// codes of that length.
	minCodes [maxCodeLength]int32
	// maxCodes[i] is the maximum code of length i, or -1 if there are no
	// codes of that length.
	maxCodes [maxCodeLength]int32
	// valsIndices[i] is the index into vals of minCodes[i].
	valsIndices [maxCodeLength]int32
}

// errShortHuffmanData means that an unexpected EOF occurred while decoding
// Huffman data.
var errShortHuffmanData = FormatError("short Huffman data")

// ensureNBits reads bytes from the byte buffer to ensure that d.bits.n is at
// least n. For best performance (avoiding function calls inside hot loops),
// the caller is the one responsible for first checking that d.bits.n < n.
func (d *decoder) ensureNBits(n int32) error {
	for {
		c, err := d.readByteStuffedByte()
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				return errShortHuffmanData
			}
			return err
		}
		d.bits.a = d.bits.a<<8 | uint64(c)
		d.bits.n += 8
		if d.bits.n >= n {
			break
		}
	}
	return nil
}

// refill moves bytes from d.bytes to d.bits, up to 57 or more bits held,
// eight at a time while no 0xFF is among them, and a stuffed 0xFF 0x00 as
// the data byte 0xFF, as readByteStuffedByte reads it; a marker (or an
// 0xFF at the end of the buffer) is left to ensureNBits, byte by byte, as
// the standard library reads them. The bits taken are the ones
// ensureNBits would take later, so the result is the same; only the
// number of calls changes.
func (d *decoder) refill() {
	i, j := d.bytes.i, d.bytes.j
	a, n := d.bits.a, d.bits.n
	if n > 56 || i == j {
		return
	}
	if i+8 <= j {
		v := binary.BigEndian.Uint64(d.bytes.buf[i:])
		// A byte of v is 0xFF when that byte of ^v is zero.
		if x := ^v; (x-0x0101010101010101)&^x&0x8080808080808080 == 0 {
			k := min(7, (64-n)/8)
			a = a<<(8*uint(k)) | v>>(64-8*uint(k))
			n += 8 * k
			i += int(k)
		}
	}
	unread := 1
	for n <= 56 && i < j {
		c := d.bytes.buf[i]
		if c == 0xff {
			// A stuffed 0xFF 0x00 is a data byte of 0xFF; a marker stops.
			if i+1 >= j || d.bytes.buf[i+1] != 0 {
				break
			}
			a = a<<8 | 0xff
			n += 8
			i += 2
			unread = 2
			continue
		}
		a = a<<8 | uint64(c)
		n += 8
		i++
		unread = 1
	}
	if i != d.bytes.i {
		d.bytes.i = i
		// As after readByteStuffedByte of the last byte taken: readFull
		// may give it back.
		d.bytes.nUnreadable = unread
		d.bits.a, d.bits.n = a, n
	}
}

// receiveExtend is the composition of RECEIVE and EXTEND, specified in section
// F.2.2.1.
func (d *decoder) receiveExtend(t uint8) (int32, error) {
	if d.bits.n < int32(t) {
		if err := d.ensureNBits(int32(t)); err != nil {
			return 0, err
		}
	}
	d.bits.n -= int32(t)
	s := int32(1) << t
	x := int32(d.bits.a>>uint8(d.bits.n)) & (s - 1)
	if x < s>>1 {
		x += ((-1) << t) + 1
	}
	return x, nil
}

// processDHT processes a Define Huffman Table marker, and initializes a huffman
// struct from its contents. Specified in section B.2.4.2.
func (d *decoder) processDHT(n int) error {
	for n > 0 {
		if n < 17 {
			return FormatError("DHT has wrong length")
		}
		if err := d.readFull(d.tmp[:17]); err != nil {
			return err
		}
		tc := d.tmp[0] >> 4
		if tc > maxTc {
			return FormatError("bad Tc value")
		}
		th := d.tmp[0] & 0x0f
		// The baseline th <= 1 restriction is specified in table B.5.
		if th > maxTh || (d.baseline && th > 1) {
			return FormatError("bad Th value")
		}
		h := &d.huff[tc][th]

		// Read nCodes and h.vals (and derive h.nCodes).
		// nCodes[i] is the number of codes with code length i.
		// h.nCodes is the total number of codes.
		h.nCodes = 0
		var nCodes [maxCodeLength]int32
		for i := range nCodes {
			nCodes[i] = int32(d.tmp[i+1])
			h.nCodes += nCodes[i]
		}
		if h.nCodes == 0 {
			return FormatError("Huffman table has zero length")
		}
		if h.nCodes > maxNCodes {
			return FormatError("Huffman table has excessive length")
		}
		n -= int(h.nCodes) + 17
		if n < 0 {
			return FormatError("DHT has wrong length")
		}
		if err := d.readFull(h.vals[:h.nCodes]); err != nil {
			return err
		}

		h.derive(&nCodes)
	}
	return nil
}

// fastBits is the look-ahead of the tables that decode a code and the
// value bits after it in one step.
const fastBits = 11

// buildFast fills h.fast: for every fastBits-bit look-ahead that starts
// with a whole code and, if its symbol has a value (an AC coefficient of
// size s), its s value bits too, the number of bits they take (low 5
// bits), the symbol (next 8) and the coefficient (high 16). Zero: decode
// the slow way. A table whose codes overflow (a damaged file) gets no
// fast entries, so that it decodes exactly as the standard library does.
func (h *huffman) buildFast(nCodes *[maxCodeLength]int32) {
	clear(h.fast[:])
	h.canonical = false
	var code, x uint32
	for i := range nCodes {
		code <<= 1
		for j := int32(0); j < nCodes[i]; j++ {
			if code >= 1<<(i+1) {
				clear(h.fast[:])
				return
			}
			l := uint32(i + 1)
			sym := h.vals[x]
			size := uint32(sym & 0x0f)
			if l+size <= fastBits {
				for v := uint32(0); v < 1<<size; v++ {
					coef := int32(v)
					if size > 0 && coef < 1<<(size-1) {
						coef += (-1 << size) + 1
					}
					e := uint32(l+size) | uint32(sym)<<5 | uint32(uint16(int16(coef)))<<16
					free := fastBits - l - size
					base := (code<<size | v) << free
					for k := uint32(0); k < 1<<free; k++ {
						h.fast[base|k] = e
					}
				}
			}
			code++
			x++
		}
	}
	h.canonical = true
}

// decodeHuffman returns the next Huffman-coded value from the bit-stream,
// decoded according to h.
func (d *decoder) decodeHuffman(h *huffman) (uint8, error) {
	if h.nCodes == 0 {
		return 0, FormatError("uninitialized Huffman table")
	}

	if d.bits.n < 8 {
		if err := d.ensureNBits(8); err != nil {
			if err != errMissingFF00 && err != errShortHuffmanData {
				return 0, err
			}
			// There are no more bytes of data in this segment, but we may still
			// be able to read the next symbol out of the previously read bits.
			// First, undo the readByte that the ensureNBits call made.
			if d.bytes.nUnreadable != 0 {
				d.unreadByteStuffedByte()
			}
			goto slowPath
		}
	}
	if v := h.lut[(d.bits.a>>uint32(d.bits.n-lutSize))&0xff]; v != 0 {
		n := (v & 0xff) - 1
		d.bits.n -= int32(n)
		return uint8(v >> 8), nil
	}

slowPath:
	for i, code := 0, int32(0); i < maxCodeLength; i++ {
		if d.bits.n == 0 {
			if err := d.ensureNBits(1); err != nil {
				return 0, err
			}
		}
		if d.bits.a>>uint32(d.bits.n-1)&1 != 0 {
			code |= 1
		}
		d.bits.n--
		if code <= h.maxCodes[i] {
			return h.vals[h.valsIndices[i]+code-h.minCodes[i]], nil
		}
		code <<= 1
	}
	return 0, FormatError("bad Huffman code")
}

func (d *decoder) decodeBit() (bool, error) {
	if d.bits.n == 0 {
		if err := d.ensureNBits(1); err != nil {
			return false, err
		}
	}
	ret := d.bits.a>>uint32(d.bits.n-1)&1 != 0
	d.bits.n--
	return ret, nil
}

func (d *decoder) decodeBits(n int32) (uint32, error) {
	if d.bits.n < n {
		if err := d.ensureNBits(n); err != nil {
			return 0, err
		}
	}
	ret := uint32(d.bits.a >> uint32(d.bits.n-n))
	ret &= (1 << uint32(n)) - 1
	d.bits.n -= n
	return ret, nil
}

// derive builds the decoding tables of h from its code counts (nCodes[i]
// codes of length i+1) and its values (h.vals, h.nCodes of them).
func (h *huffman) derive(nCodes *[maxCodeLength]int32) {
	// Derive the look-up table.
	clear(h.lut[:])
	var x, code uint32
	for i := uint32(0); i < lutSize; i++ {
		code <<= 1
		for j := int32(0); j < nCodes[i]; j++ {
			// The codeLength is 1+i, so shift code by 8-(1+i) to
			// calculate the high bits for every 8-bit sequence
			// whose codeLength's high bits matches code.
			// The high 8 bits of lutValue are the encoded value.
			// The low 8 bits are 1 plus the codeLength.
			base := uint8(code << (7 - i))
			lutValue := uint16(h.vals[x])<<8 | uint16(2+i)
			for k := uint8(0); k < 1<<(7-i); k++ {
				h.lut[base|k] = lutValue
			}
			code++
			x++
		}
	}

	// Derive minCodes, maxCodes, and valsIndices.
	var c, index int32
	for i, n := range nCodes {
		if n == 0 {
			h.minCodes[i] = -1
			h.maxCodes[i] = -1
			h.valsIndices[i] = -1
		} else {
			h.minCodes[i] = c
			h.maxCodes[i] = c + n - 1
			h.valsIndices[i] = index
			c += n
			index += n
		}
		c <<= 1
	}
	h.buildFast(nCodes)
}

// stdHuffman is the tables of Annex K.3 (image/jpeg's writer has the
// same): luminance (0) and chrominance (1), DC then AC. A Motion-JPEG frame
// (a webcam's, a camera's video) has no DHT and is decoded with them, as
// the AVI1 format says and libjpeg-turbo does (jpeg_std_huff_table).
var stdHuffman = [maxTc + 1][2]struct {
	counts [maxCodeLength]byte
	vals   []byte
}{
	dcTable: {
		{[16]byte{0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0}, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{[16]byte{0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0}, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
	},
	acTable: {
		{[16]byte{0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 125}, []byte{
			0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12,
			0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
			0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08,
			0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
			0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16,
			0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
			0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39,
			0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
			0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
			0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
			0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79,
			0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
			0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98,
			0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
			0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
			0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
			0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4,
			0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
			0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea,
			0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
			0xf9, 0xfa,
		}},
		{[16]byte{0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 119}, []byte{
			0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21,
			0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
			0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91,
			0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
			0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34,
			0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
			0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38,
			0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
			0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58,
			0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
			0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78,
			0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
			0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96,
			0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
			0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4,
			0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
			0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2,
			0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
			0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9,
			0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
			0xf9, 0xfa,
		}},
	},
}

// useStdHuffman gives table th of class tc (DC or AC) the standard table
// when the file has defined none there (0 and 1 only: Annex K has two).
func (d *decoder) useStdHuffman(tc, th uint8) {
	h := &d.huff[tc][th]
	if h.nCodes != 0 || th > 1 {
		return
	}
	spec := &stdHuffman[tc][th]
	var nCodes [maxCodeLength]int32
	for i, c := range spec.counts {
		nCodes[i] = int32(c)
	}
	h.nCodes = int32(copy(h.vals[:], spec.vals))
	h.derive(&nCodes)
}
