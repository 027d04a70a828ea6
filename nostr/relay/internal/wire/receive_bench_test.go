package wire

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// receiveFrames returns a page of EVENT messages for subscription subID as
// a relay sends them, each a signed event with the given content.
func receiveFrames(b *testing.B, subID string, n int, content string) [][]byte {
	b.Helper()
	key := nostr.GenerateKey()
	match := strings.Repeat("ab", 32)
	frames := make([][]byte, n)
	for i := range frames {
		ev := nostr.NewMove(match, i+1, content, 1_700_000_000+int64(i))
		if err := key.Sign(ev); err != nil {
			b.Fatal(err)
		}
		msg := []byte(`["EVENT",` + `"` + subID + `",`)
		msg = append(msg, nostr.MarshalEvent(ev)...)
		frames[i] = append(msg, ']')
	}
	return frames
}

// benchConn is a connection without a socket: the dispatcher is fed the
// frames directly, so the benchmark measures the gate, not the network.
func benchConn(deliver func(*gn.Event)) (*Conn, *Sub) {
	ctx, cancel := context.WithCancelCause(context.Background())
	c := &Conn{
		URL: "ws://bench", Log: slog.New(slog.DiscardHandler), Ctx: ctx, cancel: cancel,
		subs: map[string]*Sub{}, oks: map[string]chan OKReply{}, space: make(chan struct{}, 1),
		notices: NewTextLimiter(), lim: Limits{}.withDefaults(),
	}
	s := &Sub{id: "vesper-1", filters: gn.Filters{{Kinds: []int{nostr.KindMove}}}, deliver: deliver,
		eose: make(chan struct{}), closed: make(chan string, 1)}
	c.subs[s.id] = s
	return c, s
}

// escUnit is content that every escape rule and multi-byte UTF-8 touch.
const escUnit = "é\"\\\n<>\u2713\x01"

// BenchmarkReceive is the receive path of one page of maxRun events, from
// the websocket messages to the Received the client sends on: envelope
// split, strict parse, id, batched signatures, the filter, and the
// Received itself. ns/event is per event.
func BenchmarkReceive(b *testing.B) {
	for _, tc := range []struct {
		name    string
		content string
	}{
		{"move", "e2e4"},
		{"escaped-4KiB", strings.Repeat(escUnit, 4096/len(escUnit))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			n := 0
			c, s := benchConn(nil)
			s.deliver = func(ev *gn.Event) {
				r := Received{Event: ev, Relay: c.URL}
				if r.Event != nil {
					n++
				}
			}
			frames := receiveFrames(b, s.id, maxRun, tc.content)
			bytes := 0
			for _, f := range frames {
				bytes += len(f)
			}
			b.SetBytes(int64(bytes))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, _ := testkit.ProcessCPU()
			for b.Loop() {
				ch := make(chan []byte, len(frames))
				for _, f := range frames {
					ch <- f
				}
				close(ch)
				c.queued = bytes
				c.dispatched = make(chan struct{})
				c.dispatch(ch)
			}
			if n != b.N*len(frames) {
				b.Fatalf("delivered %d of %d", n, b.N*len(frames))
			}
			reportPerEvent(b, cpu0, n)
		})
	}
}

// BenchmarkReceiveUnsigned is the same path without the signature check,
// which costs most of an ordinary event: what is left is the parsing and
// serializing this package does per event.
func BenchmarkReceiveUnsigned(b *testing.B) {
	for _, tc := range []struct {
		name    string
		content string
	}{
		{"move", "e2e4"},
		{"escaped-4KiB", strings.Repeat(escUnit, 4096/len(escUnit))},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c, s := benchConn(nil)
			frames := receiveFrames(b, s.id, 64, tc.content)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, _ := testkit.ProcessCPU()
			for b.Loop() {
				for _, f := range frames {
					env, ok := c.envelope(f)
					if !ok || env.label != "EVENT" || c.lookup(env.str(1)) == nil {
						b.Fatal("envelope")
					}
					ev, err := nostr.ParseEvent(env.arr[2])
					if err != nil || !ev.CheckID() {
						b.Fatal("event", err)
					}
					if r := (Received{Event: ev, Relay: c.URL}); r.Event == nil {
						b.Fatal("received")
					}
				}
			}
			reportPerEvent(b, cpu0, b.N*len(frames))
		})
	}
}

// reportPerEvent reports wall and CPU time per event; the CPU figure is the
// steadier one on a shared machine.
func reportPerEvent(b *testing.B, cpu0 time.Duration, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
	if cpu1, ok := testkit.ProcessCPU(); ok {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(n), "cpu-ns/event")
	}
}
