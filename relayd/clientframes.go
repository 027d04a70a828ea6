package relayd

import (
	"encoding/binary"
	"io"
)

// clientFrames reads a client's websocket frames (RFC 6455 section 5.2)
// on their way to khatru, so that the guard sees each data message whole
// before khatru does and may drop it (a NEG-OPEN over the limits, which
// the guard answers itself). A message is held until its last frame has
// arrived and then passed on byte for byte, or dropped whole; control
// frames pass at once, as RFC 6455 lets them come between fragments. A
// message larger than maxHold is passed through unseen: khatru's own
// message limit closes that connection.
type clientFrames struct {
	src     io.Reader
	maxHold int
	// onMessage gets a whole data message's unmasked payload and whether
	// it is text; false drops the message.
	onMessage func(payload []byte, text bool) bool

	in, out []byte
	held    []byte // the raw frames of the message being held
	payload []byte // its unmasked payload
	text    bool   // the held message began with a text frame
	passing bool   // the current message is passed through unseen
	through uint64 // payload bytes of the current frame to pass unseen
	err     error  // src's error, returned once out is drained
	buf     [4096]byte
}

func (f *clientFrames) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if len(f.in) > 0 {
			// Whole messages may wait in in: the next goes out only
			// once the reader has taken the last (issue 38 item 2).
			if f.process(); len(f.out) > 0 {
				break
			}
		}
		if f.err != nil {
			return 0, f.err
		}
		n, err := f.src.Read(f.buf[:])
		f.in = append(f.in, f.buf[:n]...)
		f.err = err
		f.process()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	if len(f.out) == 0 {
		f.out = f.out[:0:0]
	}
	return n, nil
}

// process moves whole frames of in to out (or to held) until something
// is in out, and leaves the rest in in: one message at a time, so that
// onMessage sees a message only when its reader has read every earlier
// one, and may make it wait (flow.go).
func (f *clientFrames) process() {
	for len(f.in) > 0 && len(f.out) == 0 {
		if f.through > 0 {
			n := min(uint64(len(f.in)), f.through)
			f.out = append(f.out, f.in[:n]...)
			f.in, f.through = f.in[n:], f.through-n
			continue
		}
		if !f.frame() {
			break
		}
	}
	if len(f.in) == 0 {
		f.in = f.in[:0:0]
	}
}

// frame handles the frame at the start of in, or reports false when its
// header (or, for a frame to hold, its payload) is not all there yet.
func (f *clientFrames) frame() bool {
	h, ok := parseFrameHeader(f.in)
	if !ok {
		return false
	}
	if h.opcode >= 8 || f.passing || h.plen > uint64(f.maxHold-len(f.payload)) {
		// Control frames, and messages too big to hold, pass unseen.
		if h.opcode < 8 {
			f.out = append(f.out, f.held...)
			f.held, f.payload, f.passing = nil, nil, !h.fin
		}
		f.out = append(f.out, f.in[:h.len]...)
		f.in, f.through = f.in[h.len:], h.plen
		return true
	}
	end := h.len + int(h.plen)
	if len(f.in) < end {
		return false
	}
	if len(f.held) == 0 {
		f.text = h.opcode == 1
	}
	f.held = append(f.held, f.in[:end]...)
	start := len(f.payload)
	f.payload = append(f.payload, f.in[h.len:end]...)
	if h.masked {
		for i := range f.payload[start:] {
			f.payload[start+i] ^= h.mask[i%4]
		}
	}
	f.in = f.in[end:]
	if h.fin {
		if f.onMessage(f.payload, f.text) {
			f.out = append(f.out, f.held...)
		}
		f.held, f.payload = nil, nil
	}
	return true
}

type frameHeader struct {
	fin    bool
	opcode byte
	masked bool
	mask   [4]byte
	plen   uint64
	len    int // the header's own length
}

func parseFrameHeader(in []byte) (frameHeader, bool) {
	if len(in) < 2 {
		return frameHeader{}, false
	}
	h := frameHeader{fin: in[0]&0x80 != 0, opcode: in[0] & 0x0f, masked: in[1]&0x80 != 0, len: 2}
	h.plen = uint64(in[1] & 0x7f)
	switch h.plen {
	case 126:
		h.len = 4
	case 127:
		h.len = 10
	}
	if h.masked {
		h.len += 4
	}
	if len(in) < h.len {
		return frameHeader{}, false
	}
	switch h.plen {
	case 126:
		h.plen = uint64(binary.BigEndian.Uint16(in[2:4]))
	case 127:
		h.plen = binary.BigEndian.Uint64(in[2:10])
	}
	if h.masked {
		copy(h.mask[:], in[h.len-4:h.len])
	}
	return h, true
}
