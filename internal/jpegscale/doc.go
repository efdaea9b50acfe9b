// Package jpegscale decodes JPEG images, whole or at 1/2, 1/4 or 1/8 of
// their size, for a viewer that must show a 20-megapixel photo of an
// identity document in a window a twentieth of its size, quickly.
//
// It is a fork of Go's image/jpeg decoder (Go 1.26; the encoder is left
// out), under Go's BSD licence (the LICENSE file here). The standard
// library only decodes at full size, and most of its time goes to reading
// the entropy-coded bits one byte at a time. What this fork changes:
//
//   - DecodeScaled decodes at 1/denom of the size (denom 2, 4 or 8), as
//     libjpeg's scaled decoding does: each 8 × 8 block of coefficients
//     gives 4 × 4, 2 × 2 or 1 × 1 pixels, with chroma subsampling and
//     progressive images. A reduced block is the average of the block's
//     pixels (the inverse DCT integrated over each output pixel), so the
//     result is close to the full decode box-averaged by denom. The full
//     picture is never allocated.
//     Subsampled chroma is reduced less when it can be (4:2:0 at 1/2 is
//     decoded as 4:4:4), so that colour keeps its resolution.
//   - The entropy decoder keeps 64 bits at hand and refills them several
//     bytes at a time while no 0xFF is near, a stuffed 0xFF 0x00 as the
//     data byte (a marker stops it), and decodes a short AC code and its
//     coefficient in one look-up of an 11-bit table (built only for a
//     well-formed code set). A sequential scan's blocks are decoded with
//     the bit count in a register (entropy.go): a short code's value read
//     inline, a long code found from 16 bits by its lengths' largest
//     codes; at 1/8 a block's AC values are decoded past, not stored (only
//     its DC term is read).
//   - A large sequential scan reconstructs its blocks (dequantization,
//     inverse DCT, store) on a second goroutine while the first decodes
//     the entropy-coded data (pipeline.go).
//   - A JPEG of more than 256 scans (maxScans) is refused when its 257th
//     scan starts: each scan is a pass over the picture's blocks, and a
//     few bytes make one, so that with no limit a small hostile file
//     takes minutes of a core (the standard library decodes them all).
//     Scans that together pass over more than 2^26 blocks
//     (maxBlockVisits) are refused the same way (IsTooMuchWork), and
//     DecodeScaledContext stops between two scans once its context ends.
//   - Left out: the encoder, and image.RegisterFormat (image/jpeg stays
//     the registered "jpeg"); image/internal/imageutil is image/draw.
//
// Decode (denom 1) gives the standard library's pixels exactly, and the
// same answer (an error or none) on every input within those bounds: the
// package's tests and its fuzz target compare the two. The decoder is as
// hardened as the standard library's, and bounded in scans: a caller that
// decodes hostile bytes checks DecodeConfig's size before decoding and
// recovers from a panic.
package jpegscale
