// One subscription's answer: the stored events, endless pages, EOSE, the
// drip and the giant frame, as the options say.

package hostile

import (
	"context"
	"strconv"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
)

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
