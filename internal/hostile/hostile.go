// Package hostile is a malicious Nostr relay for tests: a websocket server
// on loopback that speaks just enough NIP-01 to be followed, and then
// misbehaves as configured: giant frames, no EOSE, events dripped slowly,
// NOTICE floods, a huge NIP-11 document, endless pages of fresh junk,
// and permessage-deflate offered to any client that asks. It is what
// issue 13's attacks looked like on the wire, at a size tests can run.
//
// It is used by tests only; nothing in it is careful about its own
// resources beyond what a test needs.
package hostile

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"vesper/nostr"
)

// Options choose the misbehaviour. The zero value is a relay that holds
// nothing and answers every REQ with EOSE at once.
type Options struct {
	// GiantFrame, if > 0, is the size of a junk message (a NOTICE) sent
	// after every REQ, GiantDelay after it.
	GiantFrame int
	GiantDelay time.Duration
	// NoEOSE never ends a query's stored events.
	NoEOSE bool
	// Drip, if set, is sent to every REQ, one event each DripEvery [1s].
	Drip      []*nostr.Event
	DripEvery time.Duration
	// Notices is how many NOTICEs of NoticeSize bytes [1000] are sent on
	// every connection, as fast as the client reads.
	Notices    int
	NoticeSize int
	// InfoSize, if > 0, pads the NIP-11 document to at least this size.
	InfoSize int
	// Info, if set, is the NIP-11 limitation object served.
	Info map[string]any
	// EndlessPages answers every query that asks for stored events with a
	// full page ("limit", or 500) of freshly signed challenges dated within
	// its since/until, then EOSE: however the client pages, there is more.
	// SameSecond dates them all at the query's until, so paging back by
	// time never gets anywhere.
	EndlessPages bool
	SameSecond   bool
	// Stored are served, where a query's filters match them, before its
	// EOSE (an honest answer, however large the events).
	Stored []*nostr.Event
	// Neg, if set, makes the relay speak NIP-77 (listed in its NIP-11
	// document): every NEG-OPEN and NEG-MSG of a connection is answered
	// with NEG-MSG Neg(round), round counting that connection's answers
	// from 0. IDFlood is the answer of issue 30, item 1.
	Neg func(round int) string
}

// Relay is a running hostile relay.
type Relay struct {
	opts  Options
	giant []byte
	info  []byte
	ln    net.Listener
	srv   *http.Server
	key   nostr.SecretKey
	wg    sync.WaitGroup

	conns      atomic.Int64 // websocket connections accepted
	reqs       atomic.Int64 // REQs received
	infos      atomic.Int64 // NIP-11 requests
	compressed atomic.Int64 // connections where the client asked for permessage-deflate
	sent       atomic.Int64 // events sent
	giants     atomic.Int64 // giant frames written whole
	notices    atomic.Int64 // flood NOTICEs written
	maxMessage atomic.Int64 // largest message received from a client
	negs       atomic.Int64 // NEG-OPEN and NEG-MSG messages received
}

// Start listens on a loopback port until ctx ends or Close.
func Start(ctx context.Context, opts Options) (*Relay, error) {
	if opts.DripEvery <= 0 {
		opts.DripEvery = time.Second
	}
	if opts.NoticeSize <= 0 {
		opts.NoticeSize = 1000
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Relay{opts: opts, ln: ln, key: nostr.GenerateKey()}
	// Built once, so that a test measuring its client's allocations sees
	// the client's, not these.
	if opts.GiantFrame > 0 {
		msg := make([]byte, 0, opts.GiantFrame+16)
		msg = append(msg, `["NOTICE","`...)
		for len(msg) < opts.GiantFrame {
			msg = append(msg, 'x')
		}
		r.giant = append(msg, `"]`...)
	}
	r.info = r.infoDoc()
	r.srv = &http.Server{Handler: r, BaseContext: func(net.Listener) context.Context { return ctx }}
	r.wg.Go(func() { _ = r.srv.Serve(ln) })
	context.AfterFunc(ctx, func() { r.Close() })
	return r, nil
}

// URL is the relay's ws:// address.
func (r *Relay) URL() string { return "ws://" + r.ln.Addr().String() }

// Close stops the relay and drops every connection.
func (r *Relay) Close() error {
	err := r.srv.Close()
	r.wg.Wait()
	return err
}

// Connections is how many websocket connections were accepted.
func (r *Relay) Connections() int64 { return r.conns.Load() }

// REQs is how many REQs arrived.
func (r *Relay) REQs() int64 { return r.reqs.Load() }

// InfoRequests is how many NIP-11 documents were asked for.
func (r *Relay) InfoRequests() int64 { return r.infos.Load() }

// CompressionAsked is how many connections asked for permessage-deflate.
func (r *Relay) CompressionAsked() int64 { return r.compressed.Load() }

// Sent is how many events were sent.
func (r *Relay) Sent() int64 { return r.sent.Load() }

// NoticesSent is how many flood NOTICEs were written.
func (r *Relay) NoticesSent() int64 { return r.notices.Load() }

// Giants is how many giant frames were written whole.
func (r *Relay) Giants() int64 { return r.giants.Load() }

// NegMessages is how many NEG-OPEN and NEG-MSG messages arrived.
func (r *Relay) NegMessages() int64 { return r.negs.Load() }

// MaxClientMessage is the largest message a client sent (a REQ, say).
func (r *Relay) MaxClientMessage() int64 { return r.maxMessage.Load() }
