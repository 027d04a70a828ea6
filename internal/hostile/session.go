// One client connection: the HTTP handler (NIP-11 or the websocket), the
// loop that reads the client's messages, and the NOTICE flood.

package hostile

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
)

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
