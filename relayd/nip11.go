package relayd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/khatru"
	gn "github.com/nbd-wtf/go-nostr"
)

// The limitations a client is expected to read from the NIP-11 document and
// obey, beyond max_limit: Options.MaxFilters (enforced),
// Options.MaxSubscriptions (advertised only) and the created_at limits
// (enforced). go-nostr's document type has no max_filters, so the document
// khatru writes is amended on its way out.

// nothingID is an id no event has: a filter refused after khatru has
// started on it is narrowed to it.
const nothingID = "0000000000000000000000000000000000000000000000000000000000000000"

// filterCounter counts the filters of each REQ as khatru hands them to the
// OverwriteFilter hooks, one REQ context each, in order.
type filterCounter struct {
	mu sync.Mutex
	n  map[context.Context]int
}

// countFilter runs first among the OverwriteFilter hooks. A REQ with more
// than MaxFilters filters gets CLOSED "blocked:", as relays that enforce
// max_filters answer, and its remaining filters are narrowed to nothing
// (a hook cannot stop khatru, and the client has dropped the subscription
// by then anyway).
func (r *Relay) countFilter(ctx context.Context, f *gn.Filter) {
	max := r.opts.MaxFilters
	ws := khatru.GetConnection(ctx)
	if max <= 0 || ws == nil || eventstore.IsNegentropySession(ctx) {
		return
	}
	fc := &r.filters
	fc.mu.Lock()
	if fc.n == nil {
		fc.n = map[context.Context]int{}
	}
	n, seen := fc.n[ctx]
	n++
	fc.n[ctx] = n
	fc.mu.Unlock()
	if !seen {
		context.AfterFunc(ctx, func() {
			fc.mu.Lock()
			delete(fc.n, ctx)
			fc.mu.Unlock()
		})
	}
	if n <= max {
		return
	}
	*f = gn.Filter{IDs: []string{nothingID}, LimitZero: true}
	if n == max+1 {
		r.filterRefusals.Add(1)
		ws.WriteJSON(gn.ClosedEnvelope{SubscriptionID: khatru.GetSubscriptionID(ctx),
			Reason: fmt.Sprintf("blocked: more than %d filters in one REQ (max_filters)", max)})
	}
}

// checkCreatedAt refuses events outside the advertised created_at window,
// both limits in seconds from now, as relays that announce them do.
func (r *Relay) checkCreatedAt(ev *gn.Event) (bool, string) {
	now := time.Now().Unix()
	switch lo, hi := r.opts.CreatedAtLowerLimit, r.opts.CreatedAtUpperLimit; {
	case lo > 0 && int64(ev.CreatedAt) < now-lo:
		return true, fmt.Sprintf("invalid: created_at more than %d seconds in the past", lo)
	case hi > 0 && int64(ev.CreatedAt) > now+hi:
		return true, fmt.Sprintf("invalid: created_at more than %d seconds in the future", hi)
	}
	return false, ""
}

// FilterRefusals is the number of REQs refused for having more than
// Options.MaxFilters filters.
func (r *Relay) FilterRefusals() int64 { return r.filterRefusals.Load() }

// withNIP11 serves khatru's NIP-11 document with max_filters added.
func (r *Relay) withNIP11(next http.Handler) http.Handler {
	if r.opts.MaxFilters <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Accept") != "application/nostr+json" || strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
			next.ServeHTTP(w, req)
			return
		}
		rec := &recorder{header: http.Header{}, code: http.StatusOK}
		next.ServeHTTP(rec, req)
		body := rec.body.Bytes()
		var doc map[string]json.RawMessage
		if rec.code == http.StatusOK && json.Unmarshal(body, &doc) == nil {
			var lim map[string]any
			if json.Unmarshal(doc["limitation"], &lim) != nil || lim == nil {
				lim = map[string]any{}
			}
			lim["max_filters"] = r.opts.MaxFilters
			if b, err := json.Marshal(lim); err == nil {
				doc["limitation"] = b
			}
			if b, err := json.Marshal(doc); err == nil {
				body = b
			}
		}
		for k, v := range rec.header {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.code)
		w.Write(body)
	})
}

// recorder keeps a handler's answer to amend it.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (rec *recorder) Header() http.Header         { return rec.header }
func (rec *recorder) Write(b []byte) (int, error) { return rec.body.Write(b) }
func (rec *recorder) WriteHeader(code int)        { rec.code = code }
