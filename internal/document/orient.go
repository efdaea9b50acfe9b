package document

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/draw"
)

// A phone stores a photo as its sensor saw it and writes in the EXIF
// Orientation tag (TIFF tag 0x0112) how to turn it to be upright: a
// portrait photo of an ID card is stored landscape with orientation 6.
// Every photo viewer applies it, and so does the console, to the picture
// only: the file is never changed.
//
// The tag is read from a JPEG's APP1 "Exif" segment, a PNG's eXIf chunk or
// a WebP's EXIF chunk, with every offset checked against the bytes: a tag
// that cannot be read is orientation 1 (as stored), never an error, since
// the picture itself may be sound.

// Orientation values (EXIF 2.32, tag 0x0112), what each asks of the
// stored picture.
var orientationWords = [9]string{
	2: "mirrored left to right",
	3: "turned 180°",
	4: "mirrored top to bottom",
	5: "mirrored and turned 90° anticlockwise",
	6: "turned 90° clockwise",
	7: "mirrored and turned 90° clockwise",
	8: "turned 90° anticlockwise",
}

// OrientationWords says what orientation o (2 to 8) does to the stored
// picture, for the viewer's status line; "" for 1 or an unknown value.
func OrientationWords(o int) string {
	if o < 2 || o > 8 {
		return ""
	}
	return orientationWords[o]
}

// exifOrientation is the EXIF orientation of an image of type t (1 to 8;
// 1 when it has none or it cannot be read).
func exifOrientation(t string, data []byte) int {
	var tiff []byte
	switch t {
	case JPEG:
		tiff = jpegExif(data)
	case PNG:
		tiff = pngExif(data)
	case WebP:
		tiff = webpExif(data)
	}
	o := tiffOrientation(tiff)
	if o < 1 || o > 8 {
		return 1
	}
	return o
}

// jpegExif is the TIFF block of a JPEG's first APP1 Exif segment, looked
// for among the segments before the first scan.
func jpegExif(b []byte) []byte {
	var tiff []byte
	jpegSegments(b, func(m byte, seg []byte) bool {
		if m == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			tiff = seg[6:]
			return false
		}
		return true
	})
	return tiff
}

// jpegSegments calls fn with each marker segment of a JPEG before its
// first scan, while fn returns true; it stops at anything that is not a
// whole segment.
func jpegSegments(b []byte, fn func(marker byte, seg []byte) bool) {
	i := 2 // after SOI
	for i+4 <= len(b) {
		if b[i] != 0xFF {
			return
		}
		m := b[i+1]
		if m == 0xFF { // fill byte
			i++
			continue
		}
		if m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01 {
			i += 2
			continue
		}
		if m == 0xDA || m == 0xD9 { // a scan or the end
			return
		}
		n := int(binary.BigEndian.Uint16(b[i+2:]))
		if n < 2 || i+2+n > len(b) {
			return
		}
		if !fn(m, b[i+4:i+2+n]) {
			return
		}
		i += 2 + n
	}
}

// jpegProcessWords names the coding process of a JPEG the decoder does not
// read (its start-of-frame marker), or "" for one it reads or none found.
func jpegProcessWords(b []byte) string {
	words := ""
	jpegSegments(b, func(m byte, _ []byte) bool {
		switch m {
		case 0xC0, 0xC1, 0xC2:
			return false
		case 0xC3:
			words = "lossless (process 14), which few programs decode"
		case 0xC5, 0xC6, 0xC7:
			words = "hierarchical (differential), which few programs decode"
		case 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
			words = "arithmetic-coded, a rare kind of JPEG that many programs do not decode"
		default:
			return true
		}
		return false
	})
	return words
}

// pngExif is the content of a PNG's eXIf chunk (before its image data).
func pngExif(b []byte) []byte {
	i := 8
	for i+8 <= len(b) {
		n := int(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		if n < 0 || n > len(b)-i-12 {
			return nil
		}
		switch typ {
		case "eXIf":
			return b[i+8 : i+8+n]
		case "IDAT", "IEND":
			return nil
		}
		i += 12 + n
	}
	return nil
}

// webpExif is the content of a WebP's EXIF chunk (the container's chunks
// are walked; some writers keep the "Exif\0\0" prefix of a JPEG).
func webpExif(b []byte) []byte {
	i := 12
	for i+8 <= len(b) {
		n := int(binary.LittleEndian.Uint32(b[i+4:]))
		if n < 0 || n > len(b)-i-8 {
			return nil
		}
		if string(b[i:i+4]) == "EXIF" {
			return bytes.TrimPrefix(b[i+8:i+8+n], []byte("Exif\x00\x00"))
		}
		i += 8 + n + n&1
	}
	return nil
}

// tiffOrientation reads tag 0x0112 of a TIFF block's first IFD; 0 when
// there is none.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0
	}
	if bo.Uint16(t[2:]) != 42 {
		return 0
	}
	off := int64(bo.Uint32(t[4:]))
	if off < 8 || off+2 > int64(len(t)) {
		return 0
	}
	n := int64(bo.Uint16(t[off:]))
	for k := int64(0); k < n; k++ {
		e := off + 2 + 12*k
		if e+12 > int64(len(t)) {
			return 0
		}
		if bo.Uint16(t[e:]) != 0x0112 {
			continue
		}
		// A SHORT, count 1, its value in the entry's first two bytes.
		if bo.Uint16(t[e+2:]) != 3 || bo.Uint32(t[e+4:]) != 1 {
			return 0
		}
		return int(bo.Uint16(t[e+8:]))
	}
	return 0
}

// orient returns img as orientation o asks it to be shown. A YCbCr
// picture (a JPEG's) stays YCbCr, its planes moved each on its own, so
// that the scaling after it is the same; anything else, or a subsampling
// the move would not keep exact, becomes RGBA.
func orient(img image.Image, o int) image.Image {
	if o < 2 || o > 8 {
		return img
	}
	swap := o >= 5
	if m, ok := img.(*image.YCbCr); ok && m.Rect.Min == (image.Point{}) {
		if out := orientYCbCr(m, o, swap); out != nil {
			return out
		}
	}
	if m, ok := img.(*image.Gray); ok && m.Rect.Min == (image.Point{}) {
		w, h := m.Rect.Dx(), m.Rect.Dy()
		pix, stride := orientPlane(m.Pix, m.Stride, w, h, o, 1)
		dw, dh := w, h
		if swap {
			dw, dh = h, w
		}
		return &image.Gray{Pix: pix, Stride: stride, Rect: image.Rect(0, 0, dw, dh)}
	}
	b := img.Bounds()
	rgba, ok := img.(*image.RGBA)
	if !ok || b.Min != (image.Point{}) {
		rgba = image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
	}
	w, h := rgba.Rect.Dx(), rgba.Rect.Dy()
	pix, stride := orientPlane(rgba.Pix, rgba.Stride, w, h, o, 4)
	dw, dh := w, h
	if swap {
		dw, dh = h, w
	}
	return &image.RGBA{Pix: pix, Stride: stride, Rect: image.Rect(0, 0, dw, dh)}
}

// orientYCbCr moves the three planes of m; nil when the subsampling would
// not come out exact (a mirrored side whose length is not a whole number
// of chroma samples, or 4:1:1 turned, which Go has no ratio for).
func orientYCbCr(m *image.YCbCr, o int, swap bool) *image.YCbCr {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	var sx, sy int // the chroma's subsampling across and down
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio444:
		sx, sy = 1, 1
	case image.YCbCrSubsampleRatio422:
		sx, sy = 2, 1
	case image.YCbCrSubsampleRatio420:
		sx, sy = 2, 2
	case image.YCbCrSubsampleRatio440:
		sx, sy = 1, 2
	case image.YCbCrSubsampleRatio411:
		sx, sy = 4, 1
	case image.YCbCrSubsampleRatio410:
		sx, sy = 4, 2
	default:
		return nil
	}
	if w%sx != 0 || h%sy != 0 {
		return nil
	}
	ratio := m.SubsampleRatio
	if swap {
		switch ratio {
		case image.YCbCrSubsampleRatio422:
			ratio = image.YCbCrSubsampleRatio440
		case image.YCbCrSubsampleRatio440:
			ratio = image.YCbCrSubsampleRatio422
		case image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410:
			return nil
		}
	}
	cw, ch := w/sx, h/sy
	y, ys := orientPlane(m.Y, m.YStride, w, h, o, 1)
	cb, cs := orientPlane(m.Cb, m.CStride, cw, ch, o, 1)
	cr, _ := orientPlane(m.Cr, m.CStride, cw, ch, o, 1)
	dw, dh := w, h
	if swap {
		dw, dh = h, w
	}
	return &image.YCbCr{Y: y, Cb: cb, Cr: cr, YStride: ys, CStride: cs, SubsampleRatio: ratio, Rect: image.Rect(0, 0, dw, dh)}
}

// orientPlane moves a w × h plane of bpp-byte pixels as orientation o asks
// and returns it with its stride. It walks the destination in tiles, so
// that a turn of a large picture reads its source a few cache lines at a
// time.
func orientPlane(src []byte, stride, w, h, o, bpp int) ([]byte, int) {
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	ds := dw * bpp
	dst := make([]byte, ds*dh)
	// The source byte of destination pixel (x, y) is base + x*sx + y*sy.
	var base, sx, sy int
	right, bottom := (w-1)*bpp, (h-1)*stride
	switch o {
	case 2:
		base, sx, sy = right, -bpp, stride
	case 3:
		base, sx, sy = bottom+right, -bpp, -stride
	case 4:
		base, sx, sy = bottom, bpp, -stride
	case 5:
		base, sx, sy = 0, stride, bpp
	case 6:
		base, sx, sy = bottom, -stride, bpp
	case 7:
		base, sx, sy = bottom+right, -stride, -bpp
	case 8:
		base, sx, sy = right, stride, -bpp
	default:
		base, sx, sy = 0, bpp, stride
	}
	const tile = 64
	for ty := 0; ty < dh; ty += tile {
		for tx := 0; tx < dw; tx += tile {
			xe := min(tx+tile, dw)
			for y := ty; y < min(ty+tile, dh); y++ {
				s := base + tx*sx + y*sy
				d := dst[y*ds+tx*bpp : y*ds+xe*bpp]
				if bpp == 1 {
					for x := range d {
						d[x] = src[s]
						s += sx
					}
					continue
				}
				for x := 0; x < len(d); x += bpp {
					copy(d[x:x+bpp], src[s:s+bpp])
					s += sx
				}
			}
		}
	}
	return dst, ds
}
