package relayd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"net/http"
	"strings"
	"sync"
)

// NIP-77 names the relay's error message NEG-ERR. khatru v0.19.1 writes
// go-nostr v0.52.3's nip77.ErrorEnvelope, whose label is NEG-ERROR, from
// inside its connection handler (a refused NEG-OPEN, a session it has
// forgotten, a message it cannot reconcile), with no hook in between.
// Clients that follow the NIP (nostr-tools' NegentropySync) do not know
// that label and wait for an answer that never comes. So the relay renames
// the label on the wire: every websocket connection's writes go through
// negErrConn, which rewrites the start of any text frame that begins
// `["NEG-ERROR",` and passes every other byte through unchanged.

const (
	negErrorPrefix = `["NEG-ERROR",`
	negErrPrefix   = `["NEG-ERR",`
)

// withNegErr hands khatru's websocket upgrader a connection whose writes
// are rewritten by negErrConn. Other requests (NIP-11, HTTP) pass as they
// are.
func withNegErr(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
			next.ServeHTTP(w, req)
			return
		}
		next.ServeHTTP(&negErrWriter{ResponseWriter: w}, req)
	})
}

// negErrWriter is an http.ResponseWriter whose hijacked connection is
// wrapped. The websocket library hijacks through http.ResponseController,
// which finds this Hijack method first.
type negErrWriter struct {
	http.ResponseWriter
}

func (w *negErrWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return &negErrConn{Conn: c}, brw, nil
}

// Unwrap lets http.ResponseController reach the other optional methods.
func (w *negErrWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// negErrConn follows the bytes the server writes: first the HTTP handshake
// (up to its blank line), then websocket frames. Server frames are not
// masked and khatru negotiates no compression, so a text frame's payload is
// the JSON message as written. A frame is held back only until its header
// and the first len(negErrorPrefix) payload bytes are there to decide on,
// which the websocket library writes in one go under its write lock, so
// nothing waits on a later write.
type negErrConn struct {
	net.Conn

	mu        sync.Mutex
	handshake bool   // the HTTP response has been passed through
	tail      []byte // the handshake's last bytes, to find "\r\n\r\n" across writes
	pending   []byte // the start of a frame not decided on yet
	remaining uint64 // payload bytes of the current frame still to pass through
	out       []byte
}

func (c *negErrConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out = c.out[:0]
	in := p
	if !c.handshake {
		in = c.passHandshake(in)
	}
	if len(c.pending) > 0 {
		c.pending = append(c.pending, in...)
		in = c.pending
	}
	for len(in) > 0 {
		if c.remaining > 0 {
			n := uint64(len(in))
			if n > c.remaining {
				n = c.remaining
			}
			c.out = append(c.out, in[:n]...)
			in, c.remaining = in[n:], c.remaining-n
			continue
		}
		used, ok := c.frameStart(in)
		if !ok {
			break
		}
		in = in[used:]
	}
	c.pending = append(c.pending[:0:0], in...)
	if _, err := c.Conn.Write(c.out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// passHandshake copies the HTTP response to out and returns what follows
// its blank line.
func (c *negErrConn) passHandshake(p []byte) []byte {
	seen := append(c.tail, p...)
	if i := bytes.Index(seen, []byte("\r\n\r\n")); i >= 0 {
		end := i + 4 - len(c.tail) // the blank line's end within p
		c.out = append(c.out, p[:end]...)
		c.handshake, c.tail = true, nil
		return p[end:]
	}
	c.out = append(c.out, p...)
	if len(seen) > 3 {
		seen = seen[len(seen)-3:]
	}
	c.tail = append(c.tail[:0:0], seen...)
	return nil
}

// frameStart reads a frame header at the start of in, writes it (renamed
// when the frame is a NEG-ERROR message) and returns how many bytes it
// used, or false when in is too short to decide yet.
func (c *negErrConn) frameStart(in []byte) (int, bool) {
	if len(in) < 2 {
		return 0, false
	}
	fin, opcode, masked := in[0]&0x80 != 0, in[0]&0x0f, in[1]&0x80 != 0
	hl, plen := 2, uint64(in[1]&0x7f)
	switch plen {
	case 126:
		hl = 4
	case 127:
		hl = 10
	}
	if masked {
		hl += 4
	}
	if len(in) < hl {
		return 0, false
	}
	switch plen {
	case 126:
		plen = uint64(binary.BigEndian.Uint16(in[2:4]))
	case 127:
		plen = binary.BigEndian.Uint64(in[2:10])
	}
	// Only a whole unmasked text message can be one khatru wrote as a
	// NEG-ERROR envelope.
	if fin && opcode == 1 && !masked && plen >= uint64(len(negErrorPrefix)) {
		if len(in) < hl+len(negErrorPrefix) {
			return 0, false
		}
		if string(in[hl:hl+len(negErrorPrefix)]) == negErrorPrefix {
			n := plen - uint64(len(negErrorPrefix)) + uint64(len(negErrPrefix))
			c.out = appendFrameHeader(c.out, in[0], n)
			c.out = append(c.out, negErrPrefix...)
			c.remaining = plen - uint64(len(negErrorPrefix))
			return hl + len(negErrorPrefix), true
		}
	}
	c.out = append(c.out, in[:hl]...)
	c.remaining = plen
	return hl, true
}

// appendFrameHeader writes an unmasked frame header with the first byte b0
// and a payload of n bytes, its length in the fewest bytes (RFC 6455
// section 5.2), as the shorter payload may need fewer than the original.
func appendFrameHeader(out []byte, b0 byte, n uint64) []byte {
	switch {
	case n <= 125:
		return append(out, b0, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(out, b0, 126), uint16(n))
	default:
		return binary.BigEndian.AppendUint64(append(out, b0, 127), n)
	}
}
