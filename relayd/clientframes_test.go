package relayd

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// maskedFrame is a client frame: masked, as RFC 6455 requires of clients.
func maskedFrame(b0 byte, payload string) []byte {
	mask := [4]byte{0x12, 0x34, 0x56, 0x78}
	h := appendFrameHeader(nil, b0, uint64(len(payload)))
	h[1] |= 0x80
	h = append(h, mask[:]...)
	for i := range len(payload) {
		h = append(h, payload[i]^mask[i%4])
	}
	return h
}

// oneByte reads one byte at a time: frame boundaries fall anywhere.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(1, len(p))]) }

// TestClientFrames: the reader passes every byte of the messages it keeps,
// in order (control frames between fragments may come first), drops whole
// the messages onMessage refuses, hands onMessage each message unmasked
// and joined, and passes a message over maxHold unseen.
func TestClientFrames(t *testing.T) {
	big := strings.Repeat("z", 300)
	var in, want []byte
	var seen []string
	add := func(keep bool, frames ...[]byte) {
		for _, f := range frames {
			in = append(in, f...)
			if keep {
				want = append(want, f...)
			}
		}
	}
	add(true, maskedFrame(0x81, `["REQ","q",{}]`))
	add(false, maskedFrame(0x81, `["DROP","x"]`))
	ping := maskedFrame(0x89, "p")
	// A fragmented message with a ping between its fragments: the ping
	// passes at once, the message after its last fragment.
	in = append(in, maskedFrame(0x01, `["EVENT",`)...)
	in = append(in, ping...)
	in = append(in, maskedFrame(0x80, `{}]`)...)
	want = append(want, ping...)
	want = append(want, maskedFrame(0x01, `["EVENT",`)...)
	want = append(want, maskedFrame(0x80, `{}]`)...)
	add(true, maskedFrame(0x81, big))
	add(true, maskedFrame(0x82, "bin"))
	for _, chunked := range []bool{false, true} {
		seen = nil
		var src io.Reader = bytes.NewReader(in)
		if chunked {
			src = oneByte{src}
		}
		f := &clientFrames{src: src, maxHold: 100, onMessage: func(p []byte, text bool) bool {
			seen = append(seen, string(p))
			return !strings.Contains(string(p), "DROP")
		}}
		got, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("chunked %v: the stream differs at byte %d of %d", chunked, firstDiff(got, want), len(want))
		}
		wantSeen := []string{`["REQ","q",{}]`, `["DROP","x"]`, `["EVENT",{}]`, "bin"}
		if strings.Join(seen, "|") != strings.Join(wantSeen, "|") {
			t.Errorf("chunked %v: onMessage saw %q, want %q (the 300-byte message unseen)", chunked, seen, wantSeen)
		}
	}
}

// TestInjectBetweenMessages: a frame the guard injects while khatru's
// fragmented message is half written goes out after that message's last
// frame, never between its fragments.
func TestInjectBetweenMessages(t *testing.T) {
	c := &deadlineCapture{}
	nc := &negErrConn{Conn: c}
	handshake := "HTTP/1.1 101 Switching Protocols\r\n\r\n"
	nc.Write([]byte(handshake))
	first, last := frame(0x01, `["EVENT","s",`), frame(0x80, `{}]`)
	nc.Write(first)
	if !nc.inject([]byte(`["NEG-ERR","n","blocked: x"]`)) {
		t.Fatal("inject dropped a frame")
	}
	nc.Write(last)
	want := append([]byte(handshake), first...)
	want = append(want, last...)
	want = append(want, frame(0x81, `["NEG-ERR","n","blocked: x"]`)...)
	if !bytes.Equal(c.capture.buf.Bytes(), want) {
		t.Fatalf("stream %q, want %q", c.capture.buf.Bytes(), want)
	}
	nc.inject([]byte(`["NOTICE","now"]`))
	if !bytes.HasSuffix(c.capture.buf.Bytes(), frame(0x81, `["NOTICE","now"]`)) {
		t.Fatal("at a message boundary inject did not write at once")
	}
}

// deadlineCapture is a capture that takes write deadlines.
type deadlineCapture struct{ capture }

func (*deadlineCapture) SetWriteDeadline(time.Time) error { return nil }
