package main

// A very small X11 client over the display's Unix socket, enough for the
// latency figures: the keyboard mapping (a keysym's keycode), the input
// focus, XTEST's fake key events, and GetImage of a rectangle of a
// window. It speaks the core protocol directly (no Xlib, no cgo, no new
// module): a key is injected and the pixels are read on one connection, so
// the server handles them in order, and the time from the key to the frame
// is measured where the reviewer sees it, in the X server's framebuffer.
// No authorisation is sent: the suite's own Xvfb is started without -auth.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

type xconn struct {
	c          net.Conn
	root       uint32
	minKey     byte
	maxKey     byte
	xtest      byte // XTEST's major opcode
	keysyms    map[uint32]keyAt
	bo         binary.ByteOrder
	readBuffer []byte
}

// dialX connects to a display such as ":95".
func dialX(display string) (*xconn, error) {
	n, _, _ := strings.Cut(strings.TrimPrefix(display, ":"), ".")
	if _, err := strconv.Atoi(n); err != nil {
		return nil, fmt.Errorf("display %q: only a local :N", display)
	}
	c, err := net.Dial("unix", "/tmp/.X11-unix/X"+n)
	if err != nil {
		return nil, err
	}
	x := &xconn{c: c, bo: binary.LittleEndian}
	if err := x.setup(); err != nil {
		c.Close()
		return nil, err
	}
	return x, nil
}

func (x *xconn) Close() error { return x.c.Close() }

func pad4(n int) int { return (4 - n%4) % 4 }

func (x *xconn) setup() error {
	req := []byte{'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := x.c.Write(req); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(x.c, head); err != nil {
		return err
	}
	more := make([]byte, int(x.bo.Uint16(head[6:]))*4)
	if _, err := io.ReadFull(x.c, more); err != nil {
		return err
	}
	if head[0] != 1 {
		return fmt.Errorf("the X server refused the connection: %q", more)
	}
	vendorLen := int(x.bo.Uint16(more[16:]))
	formats := int(more[21])
	x.minKey, x.maxKey = more[26], more[27]
	screen := 32 + vendorLen + pad4(vendorLen) + 8*formats
	x.root = x.bo.Uint32(more[screen:])
	return x.initKeys()
}

// request sends one request and, when it has a reply, reads it (events
// are skipped; an error is returned as such).
func (x *xconn) request(b []byte, reply bool) ([]byte, error) {
	if _, err := x.c.Write(b); err != nil {
		return nil, err
	}
	if !reply {
		return nil, nil
	}
	for {
		head := make([]byte, 32)
		if _, err := io.ReadFull(x.c, head); err != nil {
			return nil, err
		}
		switch head[0] {
		case 0:
			return nil, fmt.Errorf("the X server answered error %d (request %d)", head[1], head[10])
		case 1:
			n := int(x.bo.Uint32(head[4:])) * 4
			if cap(x.readBuffer) < 32+n {
				x.readBuffer = make([]byte, 32+n)
			}
			out := x.readBuffer[:32+n]
			copy(out, head)
			if _, err := io.ReadFull(x.c, out[32:]); err != nil {
				return nil, err
			}
			return out, nil
		}
	}
}

func (x *xconn) initKeys() error {
	name := "XTEST"
	b := make([]byte, 8+len(name)+pad4(len(name)))
	b[0] = 98 // QueryExtension
	x.bo.PutUint16(b[2:], uint16(len(b)/4))
	x.bo.PutUint16(b[4:], uint16(len(name)))
	copy(b[8:], name)
	r, err := x.request(b, true)
	if err != nil {
		return err
	}
	if r[8] == 0 {
		return errors.New("the X server has no XTEST")
	}
	x.xtest = r[9]
	b = make([]byte, 8)
	b[0] = 101 // GetKeyboardMapping
	x.bo.PutUint16(b[2:], 2)
	b[4], b[5] = x.minKey, x.maxKey-x.minKey+1
	r, err = x.request(b, true)
	if err != nil {
		return err
	}
	per := int(r[1])
	x.keysyms = map[uint32]keyAt{}
	syms := r[32:]
	for i := 0; (i+1)*per*4 <= len(syms); i++ {
		for j := range per {
			s := x.bo.Uint32(syms[(i*per+j)*4:])
			if _, ok := x.keysyms[s]; !ok && s != 0 {
				x.keysyms[s] = keyAt{x.minKey + byte(i), j}
			}
		}
	}
	return nil
}

// keyAt is a keysym's key and its column (1: with Shift).
type keyAt struct {
	code byte
	col  int
}

// X keysyms the figures use (a Latin-1 character's keysym is its code).
const (
	ksDown      = 0xff54
	ksEnd       = 0xff57
	ksHome      = 0xff50
	ksReturn    = 0xff0d
	ksBackSpace = 0xff08
	ksControl   = 0xffe3
	ksShift     = 0xffe1
)

// keycode of a keysym.
func (x *xconn) keycode(sym uint32) (byte, error) {
	k, ok := x.keysyms[sym]
	if !ok {
		return 0, fmt.Errorf("no key for keysym %#x", sym)
	}
	return k.code, nil
}

// typeSym is tap with Shift held when the keysym is on a key's second
// column (an upper-case letter, an underscore).
func (x *xconn) typeSym(sym uint32) error {
	if k, ok := x.keysyms[sym]; ok && k.col == 1 {
		return x.tap(sym, ksShift)
	}
	return x.tap(sym)
}

// fake sends XTEST FakeInput: a key press (down) or release.
func (x *xconn) fake(code byte, down bool) error {
	b := make([]byte, 36)
	b[0], b[1] = x.xtest, 2 // XTestFakeInput
	x.bo.PutUint16(b[2:], 9)
	b[4] = 3 // KeyRelease
	if down {
		b[4] = 2 // KeyPress
	}
	b[5] = code
	_, err := x.request(b, false)
	return err
}

// tap presses and releases a key, with modifiers held around it.
func (x *xconn) tap(sym uint32, mods ...uint32) error {
	code, err := x.keycode(sym)
	if err != nil {
		return err
	}
	var mcodes []byte
	for _, m := range mods {
		mc, err := x.keycode(m)
		if err != nil {
			return err
		}
		mcodes = append(mcodes, mc)
		if err := x.fake(mc, true); err != nil {
			return err
		}
	}
	if err := x.fake(code, true); err != nil {
		return err
	}
	if err := x.fake(code, false); err != nil {
		return err
	}
	for i := len(mcodes) - 1; i >= 0; i-- {
		if err := x.fake(mcodes[i], false); err != nil {
			return err
		}
	}
	return nil
}

// focus gives the window the input focus (SetInputFocus, revert to parent).
func (x *xconn) focus(win uint32) error {
	b := make([]byte, 12)
	b[0], b[1] = 42, 2
	x.bo.PutUint16(b[2:], 3)
	x.bo.PutUint32(b[4:], win)
	_, err := x.request(b, false)
	return err
}

// rect is a rectangle of a window, in its pixels.
type rect struct{ x, y, w, h int }

// image reads the pixels of a rectangle of a window (ZPixmap), into a
// buffer that the next call reuses.
func (x *xconn) image(win uint32, r rect) ([]byte, error) {
	b := make([]byte, 20)
	b[0], b[1] = 73, 2 // GetImage, ZPixmap
	x.bo.PutUint16(b[2:], 5)
	x.bo.PutUint32(b[4:], win)
	x.bo.PutUint16(b[8:], uint16(r.x))
	x.bo.PutUint16(b[10:], uint16(r.y))
	x.bo.PutUint16(b[12:], uint16(r.w))
	x.bo.PutUint16(b[14:], uint16(r.h))
	x.bo.PutUint32(b[16:], 0xffffffff)
	out, err := x.request(b, true)
	if err != nil {
		return nil, err
	}
	return out[32:], nil
}

func sameImage(a, b []byte) bool { return bytes.Equal(a, b) }
