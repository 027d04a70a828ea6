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
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"

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

func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Header.Get("Upgrade") == "" {
		r.serveInfo(w)
		return
	}
	if strings.Contains(req.Header.Get("Sec-WebSocket-Extensions"), "permessage-deflate") {
		r.compressed.Add(1)
	}
	c, err := ws.Accept(w, req, &ws.AcceptOptions{
		InsecureSkipVerify: true,
		// Offered to any client that asks: a small frame on the wire can
		// then inflate to a large message.
		CompressionMode: ws.CompressionContextTakeover,
	})
	if err != nil {
		return
	}
	r.conns.Add(1)
	c.SetReadLimit(8 << 20)
	r.session(req.Context(), c)
}

func (r *Relay) serveInfo(w http.ResponseWriter) {
	r.infos.Add(1)
	w.Header().Set("Content-Type", "application/nostr+json")
	_, _ = w.Write(r.info)
}

func (r *Relay) infoDoc() []byte {
	nips := []int{1, 11}
	if r.opts.Neg != nil {
		nips = append(nips, 77)
	}
	doc := map[string]any{"name": "hostile", "software": "vesper/internal/hostile", "supported_nips": nips}
	if r.opts.Info != nil {
		doc["limitation"] = r.opts.Info
	}
	if r.opts.InfoSize > 0 {
		doc["description"] = strings.Repeat("a", r.opts.InfoSize)
	}
	b, _ := json.Marshal(doc)
	return b
}

// session serves one connection until the client goes.
func (r *Relay) session(ctx context.Context, c *ws.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer c.CloseNow()
	var wg sync.WaitGroup
	defer wg.Wait()
	if r.opts.Notices > 0 {
		wg.Go(func() { r.flood(ctx, c) })
	}
	subs := map[string]context.CancelFunc{}
	negRound := 0
	defer func() {
		for _, stop := range subs {
			stop()
		}
	}()
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		if n := int64(len(msg)); n > r.maxMessage.Load() {
			r.maxMessage.Store(n)
		}
		label, id, arr := parseMessage(msg)
		switch label {
		case "REQ":
			r.reqs.Add(1)
			if stop := subs[id]; stop != nil {
				stop()
			}
			sctx, stop := context.WithCancel(ctx)
			subs[id] = stop
			fs := parseFilters(arr[2:])
			wg.Go(func() { r.serveREQ(sctx, ctx, c, id, fs) })
		case "CLOSE":
			if stop := subs[id]; stop != nil {
				stop()
				delete(subs, id)
			}
		case "NEG-OPEN", "NEG-MSG":
			r.negs.Add(1)
			if r.opts.Neg != nil {
				_ = write(ctx, c, []any{"NEG-MSG", id, r.opts.Neg(negRound)})
				negRound++
			}
		case "EVENT":
			var ev struct {
				ID string `json:"id"`
			}
			if len(arr) >= 2 && json.Unmarshal(arr[1], &ev) == nil {
				_ = write(ctx, c, []any{"OK", ev.ID, false, "blocked: hostile relay"})
			}
		}
	}
}

// parseMessage splits a client message into its label, its second
// element (a subscription id, or an event for EVENT) as a string when it
// is one, and every element; label is "" for anything else.
func parseMessage(msg []byte) (label, id string, arr []json.RawMessage) {
	if json.Unmarshal(msg, &arr) != nil || len(arr) < 2 {
		return "", "", nil
	}
	_ = json.Unmarshal(arr[0], &label)
	_ = json.Unmarshal(arr[1], &id)
	return label, id, arr
}

// parseFilters is the filters of a REQ that parse; the others are dropped.
func parseFilters(raws []json.RawMessage) []gn.Filter {
	var fs []gn.Filter
	for _, raw := range raws {
		var f gn.Filter
		if f.UnmarshalJSON(raw) == nil {
			fs = append(fs, f)
		}
	}
	return fs
}

func write(ctx context.Context, c *ws.Conn, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.Write(ctx, ws.MessageText, b)
}

func (r *Relay) sendEvent(ctx context.Context, c *ws.Conn, id string, ev *nostr.Event) error {
	msg := append([]byte(`["EVENT",`+strconv.Quote(id)+`,`), nostr.MarshalEvent(ev)...)
	msg = append(msg, ']')
	if err := c.Write(ctx, ws.MessageText, msg); err != nil {
		return err
	}
	r.sent.Add(1)
	return nil
}

// serveREQ answers one subscription as the options say, until ctx (the
// subscription's) ends. Writes use conn, the connection's context: the
// websocket library closes the whole connection when a write's context
// ends mid-write, and a CLOSE must end a subscription, not the connection.
func (r *Relay) serveREQ(ctx, conn context.Context, c *ws.Conn, id string, fs []gn.Filter) {
	if r.opts.GiantFrame > 0 {
		go r.sendGiantLater(ctx, conn, c)
	}
	if !r.sendStored(ctx, conn, c, id, fs) {
		return
	}
	if !r.opts.NoEOSE {
		if ctx.Err() != nil || write(conn, c, []any{"EOSE", id}) != nil {
			return
		}
	}
	for _, ev := range r.opts.Drip {
		t := time.NewTimer(r.opts.DripEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		if ctx.Err() != nil || r.sendEvent(conn, c, id, ev) != nil {
			return
		}
	}
	<-ctx.Done()
}

// sendGiantLater sends the giant frame after GiantDelay, unless the
// subscription ends first.
func (r *Relay) sendGiantLater(ctx, conn context.Context, c *ws.Conn) {
	t := time.NewTimer(r.opts.GiantDelay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	if c.Write(conn, ws.MessageText, r.giant) == nil {
		r.giants.Add(1)
	}
}

// sendStored sends the stored events fs matches, then with EndlessPages a
// full page for each filter, unless every filter asks for none (limit 0).
// It reports false when the subscription ended or a write failed.
func (r *Relay) sendStored(ctx, conn context.Context, c *ws.Conn, id string, fs []gn.Filter) bool {
	stored := false
	for _, f := range fs {
		if !f.LimitZero {
			stored = true
		}
	}
	if !stored {
		return true
	}
	for _, ev := range r.opts.Stored {
		if gn.Filters(fs).Match(ev) {
			if ctx.Err() != nil || r.sendEvent(conn, c, id, ev) != nil {
				return false
			}
		}
	}
	if !r.opts.EndlessPages {
		return true
	}
	for _, f := range fs {
		if f.LimitZero {
			continue
		}
		for _, ev := range r.page(f) {
			if ctx.Err() != nil || r.sendEvent(conn, c, id, ev) != nil {
				return false
			}
		}
	}
	return true
}

// page is a full page of fresh challenges that f matches.
func (r *Relay) page(f gn.Filter) []*nostr.Event {
	n := f.Limit
	if n <= 0 || n > 500 {
		n = 500
	}
	top := time.Now().Unix()
	if f.Until != nil {
		top = int64(*f.Until)
	}
	var bottom int64
	if f.Since != nil {
		bottom = int64(*f.Since)
	}
	out := make([]*nostr.Event, 0, n)
	for i := range n {
		t := top - int64(i)
		if r.opts.SameSecond || t < bottom {
			t = top
		}
		ev := nostr.NewChallenge("chess", "", t)
		ev.Content = `{"game":"chess","junk":` + strconv.Itoa(int(r.sent.Load())+i) + `}`
		if r.key.Sign(ev) != nil || !f.Matches(ev) {
			continue
		}
		out = append(out, ev)
	}
	return out
}

// flood sends the NOTICEs.
func (r *Relay) flood(ctx context.Context, c *ws.Conn) {
	text := strings.Repeat("n", r.opts.NoticeSize)
	for range r.opts.Notices {
		if write(ctx, c, []any{"NOTICE", text}) != nil {
			return
		}
		r.notices.Add(1)
	}
}
