package relayd

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/fiatjaf/khatru"
	gn "github.com/nbd-wtf/go-nostr"
)

// Limits bound what one client can make the relay do. The zero value
// limits nothing beyond khatru's own defaults, which is what tests of a
// relay on loopback want; `vesper relay` starts with PublicLimits.
type Limits struct {
	// MaxMessageBytes is the largest websocket message read; a bigger one
	// closes the connection [0: khatru's 512000]. An event is at most
	// 65536 bytes (PROTOCOL.md section 1), so a little over twice that
	// leaves room for any envelope and escaping.
	MaxMessageBytes int64
	// EventsPerMinute is how many EVENTs one connection may send per
	// minute, in a burst of as many; more are refused with a
	// "rate-limited:" OK message [0: no limit].
	EventsPerMinute int
	// ReqsPerMinute is the same for filters (REQ, COUNT, NEG-OPEN) [0: no
	// limit].
	ReqsPerMinute int
	// MaxConnections is how many websocket connections may be open at
	// once; one more is refused with HTTP 429 [0: no limit].
	MaxConnections int
	// MaxConnectionsPerIP is how many of them one client address (an IPv4
	// address, an IPv6 /64) may hold, so that one address cannot take
	// every slot; one more is refused with HTTP 429 [0: no limit].
	MaxConnectionsPerIP int
	// ClientKey, when set, replaces the client address connections are
	// counted under (tests: every loopback client is 127.0.0.1).
	ClientKey func(*http.Request) string
	// IdleTimeout closes a connection whose client has sent no message
	// for this long and that holds no subscription and no NIP-77 session
	// (websocket pings do not count) [0: never].
	IdleTimeout time.Duration
	// NegSessionsPerConnection and NegSessionsTotal cap the NIP-77
	// sessions open at once on one connection and on the relay; a
	// NEG-OPEN past either gets NEG-ERR "blocked: ..." [0: no cap].
	NegSessionsPerConnection int
	NegSessionsTotal         int
	// NegMemoryBytes bounds what the open NIP-77 sessions may hold, each
	// counted as if its filter matched every stored event (khatru keeps a
	// vector of them per session); a NEG-OPEN that would pass it gets
	// NEG-ERR "blocked: ..." [0: no bound].
	NegMemoryBytes int64
	// MaxInFlight is how many of one connection's messages khatru may be
	// handling at once (sent and not answered); the connection's next
	// message is not read until one is answered, and a connection that
	// keeps this many unanswered for 30 s is closed (flow.go) [0: no
	// bound: khatru reads every message at once].
	MaxInFlight int
	// MaxSubscriptions is how many subscriptions (REQs not closed) one
	// connection may hold; a REQ past it gets CLOSED "blocked: ...". It is
	// announced as limitation.max_subscriptions [0: no bound, or
	// Options.MaxSubscriptions].
	MaxSubscriptions int
	// MaxStrikes closes a connection that got this many "rate-limited:"
	// answers in a row, instead of answering it again and again [0: never].
	MaxStrikes int
	// MemoryStoreBytes bounds the events kept by a relay without a
	// database (their JSON size); past it, EVENTs are refused "blocked:"
	// [0: no bound].
	MemoryStoreBytes int64
}

// PublicLimits are `vesper relay`'s defaults: enough for agents playing
// and a daemon syncing, not for a flood.
func PublicLimits() Limits {
	return Limits{MaxMessageBytes: 140000, EventsPerMinute: 300, ReqsPerMinute: 300, MaxConnections: 256,
		MaxConnectionsPerIP: 32, IdleTimeout: 5 * time.Minute,
		NegSessionsPerConnection: 4, NegSessionsTotal: 64, NegMemoryBytes: 128 << 20,
		MaxInFlight: 8, MaxSubscriptions: 32, MaxStrikes: 20,
		MemoryStoreBytes: 256 << 20}
}

// IsLoopback reports whether a listen address only accepts connections
// from this machine ("127.0.0.1:7447", "[::1]:0", "localhost:7447").
func IsLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// limiter holds one token bucket per connection for events and one for
// filters.
type limiter struct {
	lim Limits
	now func() time.Time

	mu    sync.Mutex
	conns map[*khatru.WebSocket]*connBuckets
}

type connBuckets struct{ events, reqs bucket }

// bucket is a token bucket refilled continuously at perMinute per minute,
// holding at most perMinute tokens.
type bucket struct {
	tokens float64
	last   time.Time
}

func (b *bucket) take(perMinute int, now time.Time) bool {
	if b.last.IsZero() {
		b.tokens, b.last = float64(perMinute), now
	}
	b.tokens += now.Sub(b.last).Minutes() * float64(perMinute)
	b.last = now
	if b.tokens > float64(perMinute) {
		b.tokens = float64(perMinute)
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// applyLimits installs r.opts.Limits on kh.
func (r *Relay) applyLimits(kh *khatru.Relay) {
	lim := r.opts.Limits
	if lim.MaxMessageBytes > 0 {
		kh.MaxMessageSize = lim.MaxMessageBytes
	}
	if lim.MaxConnections > 0 {
		kh.RejectConnection = append(kh.RejectConnection, func(*http.Request) bool {
			return r.Connections() >= lim.MaxConnections
		})
	}
	if lim.EventsPerMinute <= 0 && lim.ReqsPerMinute <= 0 {
		return
	}
	l := &limiter{lim: lim, now: time.Now, conns: map[*khatru.WebSocket]*connBuckets{}}
	kh.OnDisconnect = append(kh.OnDisconnect, func(ctx context.Context) {
		l.mu.Lock()
		delete(l.conns, khatru.GetConnection(ctx))
		l.mu.Unlock()
	})
	if lim.EventsPerMinute > 0 {
		kh.RejectEvent = append(kh.RejectEvent, func(ctx context.Context, _ *gn.Event) (bool, string) {
			if l.allow(ctx, false) {
				return false, ""
			}
			return true, "rate-limited: too many events on this connection, slow down"
		})
	}
	if lim.ReqsPerMinute > 0 {
		kh.RejectFilter = append(kh.RejectFilter, func(ctx context.Context, _ gn.Filter) (bool, string) {
			if l.allow(ctx, true) {
				return false, ""
			}
			return true, "rate-limited: too many requests on this connection, slow down"
		})
	}
}

// allow takes a token from the connection's bucket. A context without a
// connection (the relay's own Publish) is never limited.
func (l *limiter) allow(ctx context.Context, req bool) bool {
	ws := khatru.GetConnection(ctx)
	if ws == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.conns[ws]
	if b == nil {
		b = &connBuckets{}
		l.conns[ws] = b
	}
	if req {
		return b.reqs.take(l.lim.ReqsPerMinute, l.now())
	}
	return b.events.take(l.lim.EventsPerMinute, l.now())
}
