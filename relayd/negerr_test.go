package relayd

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip77"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/empty"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// negError sends NEG-OPEN (or, with msgOnly, a NEG-MSG for a session the
// relay never opened) and returns the label and reason of the relay's
// error answer.
func negError(t *testing.T, rc *rawClient, f gn.Filter, msgOnly bool) (label, reason string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(10*time.Second))
	defer cancel()
	start := negentropy.New(empty.Empty{}, 1<<20).Start()
	var env []byte
	if msgOnly {
		env, _ = nip77.MessageEnvelope{SubscriptionID: "n", Message: start}.MarshalJSON()
	} else {
		env, _ = nip77.OpenEnvelope{SubscriptionID: "n", Filter: f, Message: start}.MarshalJSON()
	}
	var raw []any
	json.Unmarshal(env, &raw)
	if err := rc.send(ctx, raw...); err != nil {
		t.Fatal(err)
	}
	for {
		msg, label, err := rc.next(ctx)
		if err != nil {
			t.Fatalf("no answer to NEG-%s: %v", map[bool]string{true: "MSG", false: "OPEN"}[msgOnly], err)
		}
		if strings.HasPrefix(label, "NEG-") && label != "NEG-MSG" && len(msg) == 3 {
			json.Unmarshal(msg[2], &reason)
			return label, reason
		}
		if label == "NEG-MSG" {
			t.Fatalf("relay reconciled, want an error")
		}
	}
}

// TestNegErrLabel: NIP-77 errors go out as NEG-ERR, the NIP's label, for
// each way khatru refuses (a policy, a rate limit, AUTH, a session it does
// not know), never as go-nostr's NEG-ERROR, which nostr-tools ignores.
func TestNegErrLabel(t *testing.T) {
	f := gn.Filter{Kinds: []int{nostr.KindMove}}
	tests := []struct {
		name    string
		opts    Options
		before  func(rc *rawClient) // uses up what the relay allows
		msgOnly bool
		reason  string
	}{
		{"refused", Options{RefuseNegentropy: "blocked: filter too broad"}, nil, false, "blocked: filter too broad"},
		// Longer than khatru's 1024-byte write buffer: sent in several frames.
		{"long reason", Options{RefuseNegentropy: "blocked: " + strings.Repeat("too broad ", 300)}, nil, false, "blocked: too broad too broad"},
		{"rate-limited", Options{Limits: Limits{ReqsPerMinute: 1}}, func(rc *rawClient) { rc.mustQuery(f) }, false, "rate-limited:"},
		{"auth", Options{RequireAuth: true}, nil, false, "auth-required:"},
		// As strfry and nostr-rs-relay say it (khatru: "CLOSED").
		{"unknown session", Options{}, nil, true, "closed: unknown subscription handle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := startRelay(t, tt.opts)
			rc := dial(t, r.URL())
			if tt.before != nil {
				tt.before(rc)
			}
			label, reason := negError(t, rc, f, tt.msgOnly)
			if label != "NEG-ERR" || !strings.HasPrefix(reason, tt.reason) {
				t.Fatalf("got [%q, _, %q], want [\"NEG-ERR\", _, %q...]", label, reason, tt.reason)
			}
		})
	}
}

// capture is a net.Conn that keeps what is written to it.
type capture struct {
	net.Conn
	buf bytes.Buffer
}

func (c *capture) Write(p []byte) (int, error) { return c.buf.Write(p) }

// frame is an unmasked websocket frame.
func frame(b0 byte, payload string) []byte {
	return append(appendFrameHeader(nil, b0, uint64(len(payload))), payload...)
}

// TestNegErrConn: the rewriting keeps every byte but a NEG-ERROR label's,
// whatever the writes' boundaries: the handshake passes untouched, frame
// lengths are re-encoded (a 126-byte payload shrinks to the 7-bit form),
// a message in several frames is renamed in its first, and other frames
// pass as they are.
func TestNegErrConn(t *testing.T) {
	handshake := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"
	long := `["NEG-ERROR","s","` + strings.Repeat("x", 126-len(`["NEG-ERROR","s",""]`)) + `"]`
	huge := `["NEG-ERROR","s","` + strings.Repeat("y", 70000) + `"]`
	var in, want []byte
	in = append(in, handshake...)
	want = append(want, handshake...)
	for _, f := range []struct {
		b0       byte
		in, want string
	}{
		{0x81, `["NEG-ERROR","s","CLOSED"]`, `["NEG-ERR","s","closed: unknown subscription handle"]`},
		{0x81, `["NEG-ERROR","s","CLOSED "]`, `["NEG-ERR","s","CLOSED "]`},
		{0x81, `["NEG-MSG","s","61"]`, `["NEG-MSG","s","61"]`},
		{0x81, `["OK","x",true,""]`, `["OK","x",true,""]`},
		{0x89, `ping`, `ping`},
		{0x81, long, strings.Replace(long, "NEG-ERROR", "NEG-ERR", 1)},
		{0x01, `["NEG-ERROR","s","first of`, `["NEG-ERR","s","first of`},
		{0x80, ` two"]`, ` two"]`},
		{0x80, `["NEG-ERROR","continued"]`, `["NEG-ERROR","continued"]`},
		{0x82, `["NEG-ERROR","binary"]`, `["NEG-ERROR","binary"]`},
		{0x81, huge, strings.Replace(huge, "NEG-ERROR", "NEG-ERR", 1)},
		{0x81, `[]`, `[]`},
	} {
		in = append(in, frame(f.b0, f.in)...)
		want = append(want, frame(f.b0, f.want)...)
	}
	if len(long) != 126 {
		t.Fatalf("test data: the long message has %d bytes, want 126 (the smallest with a 16-bit length)", len(long))
	}
	for _, size := range []int{1, 2, 3, 7, 13, 100, len(in)} {
		c := &capture{}
		nc := &negErrConn{Conn: c}
		for rest := in; len(rest) > 0; {
			n := min(size, len(rest))
			if got, err := nc.Write(rest[:n]); got != n || err != nil {
				t.Fatalf("writes of %d: Write returned %d, %v", size, got, err)
			}
			rest = rest[n:]
		}
		if !bytes.Equal(c.buf.Bytes(), want) {
			t.Errorf("writes of %d bytes: the stream differs from the expected one at byte %d of %d",
				size, firstDiff(c.buf.Bytes(), want), len(want))
		}
	}
	if h := appendFrameHeader(nil, 0x81, 124); len(h) != 2 || binary.BigEndian.Uint16([]byte{0, h[1]}) != 124 {
		t.Errorf("124-byte header %x, want the 7-bit form", h)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
