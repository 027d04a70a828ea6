package relayd

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"net"
	"sync"
	"time"
)

// NIP-77 names the relay's error message NEG-ERR. khatru v0.19.1 writes
// go-nostr v0.52.3's nip77.ErrorEnvelope, whose label is NEG-ERROR, from
// inside its connection handler (a refused NEG-OPEN, a session it has
// forgotten, a message it cannot reconcile), with no hook in between.
// Clients that follow the NIP (nostr-tools' NegentropySync) do not know
// that label and wait for an answer that never comes. So the relay renames
// the label on the wire: every websocket connection's writes go through
// negErrConn (the guard, guard.go, puts it there), which rewrites the start of any text frame that begins
// `["NEG-ERROR",` and passes every other byte through unchanged, but for
// two more of khatru's words: a session it does not know is answered as
// other relays answer it (renamedReason), and a connection hears one AUTH
// challenge, not one per refusal (challenged).

const (
	authPrefix     = `["AUTH",`
	negErrorPrefix = `["NEG-ERROR",`
	negErrPrefix   = `["NEG-ERR",`
)

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

	// observe, when set, sees the start of every text frame that begins
	// `["NEG-` (up to negPeek bytes; whole says the frame is all there and
	// ends its message), so that the guard can follow NIP-77 sessions.
	observe func(start []byte, whole bool)
	// answer, when set, sees the start of every text message (up to
	// negPeek bytes), so that the guard can tell its answers (flow.go).
	answer func(start []byte)
	// inMessage is true between the first and the last frame of a
	// fragmented data message, where no other message may be written.
	inMessage bool
	// challenged says a NIP-42 AUTH challenge went out. khatru sends
	// ["AUTH", challenge] again before every "auth-required:" refusal (one
	// per REQ, EVENT, COUNT and NEG-OPEN); NIP-42 has a relay challenge a
	// connection once, and clients that answer each one sign an AUTH
	// event per refusal. The challenge is the same string every time, so
	// the first one is all a client needs.
	challenged bool
	// queued holds frames inject could not write at once (a message of
	// khatru's was half written), written at the next message boundary.
	queued []byte
}

// negPeek is how much of a NIP-77 frame observe sees: the label, the
// subscription id and, for a short frame, all of it.
const negPeek = 256

// maxQueued bounds the frames inject may hold back on one connection.
const maxQueued = 64 << 10

// inject writes msg as one text message of its own, between khatru's
// messages: at once if none is half written, else at the end of the one
// being written. It reports false when msg had to be dropped (the queue
// is full: the client is not reading).
func (c *negErrConn) inject(msg []byte) bool {
	f := append(appendFrameHeader(nil, 0x81, uint64(len(msg))), msg...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.atBoundary() {
		// khatru's last write deadline may have passed long ago.
		_ = c.Conn.SetWriteDeadline(time.Now().Add(injectWait))
		_, err := c.Conn.Write(f)
		return err == nil
	}
	if len(c.queued)+len(f) > maxQueued {
		return false
	}
	c.queued = append(c.queued, f...)
	return true
}

// injectWait bounds one injected write to a client that does not read.
const injectWait = 10 * time.Second

func (c *negErrConn) atBoundary() bool {
	return c.handshake && c.remaining == 0 && len(c.pending) == 0 && !c.inMessage
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
	if len(c.queued) > 0 && c.atBoundary() {
		c.out = append(c.out, c.queued...)
		c.queued = nil
	}
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
	opcode, masked := in[0]&0x0f, in[1]&0x80 != 0
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
	fin := in[0]&0x80 != 0
	if opcode == 1 && fin && !masked && plen <= negPeek && plen >= uint64(len(authPrefix)) {
		// A short message is all in this write (see negErrConn); an
		// AUTH challenge after the connection's first is dropped.
		if len(in) < hl+int(plen) {
			return 0, false
		}
		if string(in[hl:hl+len(authPrefix)]) == authPrefix {
			if c.challenged {
				return hl + int(plen), true
			}
			c.challenged = true
		}
	}
	// A message starts in a text frame (opcode 1; the frames that continue
	// it have opcode 0), so that is where a NEG-ERROR envelope's label is,
	// whether the message fits one frame or, with a long reason, several:
	// each frame has its own length, so renaming in the first one is whole.
	if opcode == 1 && !masked && (c.observe != nil || c.answer != nil) {
		need := int(min(plen, negPeek))
		if len(in) < hl+need {
			return 0, false
		}
		start := in[hl : hl+need]
		if c.observe != nil && bytes.HasPrefix(start, []byte(`["NEG-`)) {
			c.observe(start, fin && uint64(need) == plen)
		}
		if c.answer != nil {
			c.answer(start)
		}
	}
	if opcode < 8 {
		c.inMessage = !fin
	}
	if opcode == 1 && !masked && plen >= uint64(len(negErrorPrefix)) {
		if len(in) < hl+len(negErrorPrefix) {
			return 0, false
		}
		if string(in[hl:hl+len(negErrorPrefix)]) == negErrorPrefix {
			// A short, whole message is read to the end, for its reason
			// (the websocket library writes a frame in one go, so this
			// waits on no later write).
			if fin && plen <= negPeek {
				if len(in) < hl+int(plen) {
					return 0, false
				}
				if msg, ok := renamedReason(in[hl : hl+int(plen)]); ok {
					c.out = appendFrameHeader(c.out, in[0], uint64(len(msg)))
					c.out = append(c.out, msg...)
					return hl + int(plen), true
				}
			}
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

// unknownSession is the reason other relays (strfry, nostr-rs-relay) give
// for a NEG-MSG or NEG-CLOSE of a session they do not hold; khatru says
// only "CLOSED", which a client cannot tell from a reason of its own.
const unknownSession = "closed: unknown subscription handle"

// renamedReason rewrites khatru's whole NEG-ERROR message for a session it
// does not know, ["NEG-ERROR", sub, "CLOSED"], as the NIP-77 message
// ["NEG-ERR", sub, unknownSession]; any other message is left to the
// label's renaming (false).
func renamedReason(payload []byte) ([]byte, bool) {
	var env []string
	if json.Unmarshal(payload, &env) != nil || len(env) != 3 || env[0] != "NEG-ERROR" || env[2] != "CLOSED" {
		return nil, false
	}
	msg, err := json.Marshal([]string{"NEG-ERR", env[1], unknownSession})
	return msg, err == nil
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
