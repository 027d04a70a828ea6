package relayd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/khatru"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"
)

// The limitations a client is expected to read from the NIP-11 document and
// obey, beyond max_limit: Options.MaxFilters (enforced),
// Options.MaxSubscriptions (enforced, flow.go) and the created_at limits
// (enforced). go-nostr's document type has no max_filters and writes every
// field whether set or not, so the document khatru writes is amended on its
// way out (withNIP11).

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

// SoftwareURL and SoftwareVersion fill NIP-11's software and version.
// The NIP wants a URL for the software; vesper has no public home of its
// own yet, so the relay names what serves the websocket, khatru.
const (
	SoftwareURL     = "https://github.com/fiatjaf/khatru"
	SoftwareVersion = "v0.19.1 (vesper relayd)"
)

// nip11 fills in the document khatru starts from. supported_nips lists
// what this relay does: khatru's list names 42 although a client is only
// ever asked to AUTH when the relay requires it (Options.RequireAuth), and
// 86 although no management method is set up, so both go unless they hold.
// 40 stays: expired events are refused and not served (wellformed.go).
func (r *Relay) nip11(_ context.Context, _ *http.Request, info nip11.RelayInformationDocument) nip11.RelayInformationDocument {
	auth := r.requireAuth.Load()
	info.SupportedNIPs = slices.DeleteFunc(slices.Clone(info.SupportedNIPs), func(n any) bool {
		return n == 86 || n == 42 && !auth
	})
	lim := &nip11.RelayLimitationDocument{
		AuthRequired:        auth,
		RestrictedWrites:    r.opts.RestrictedWrites,
		MaxSubscriptions:    r.guard.lim.MaxSubscriptions,
		CreatedAtLowerLimit: r.opts.CreatedAtLowerLimit,
		CreatedAtUpperLimit: r.opts.CreatedAtUpperLimit,
	}
	if !r.opts.HideLimits {
		lim.MaxLimit = r.opts.MaxLimit
		lim.DefaultLimit = r.opts.MaxLimit
	}
	info.Limitation = lim
	return info
}

// withNIP11 amends the document khatru writes where go-nostr's type cannot
// say it right: max_filters (not a field of it) is added; empty optional
// strings (pubkey, contact, ...) are left out, since an empty pubkey is no
// key; and created_at limits that are not set are left out, since a limit
// of 0 read literally would allow only events stamped this very second.
func (r *Relay) withNIP11(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Header.Get("Accept") != "application/nostr+json" || strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
			next.ServeHTTP(w, req)
			return
		}
		rec := &recorder{header: http.Header{}, code: http.StatusOK}
		next.ServeHTTP(rec, req)
		body := rec.body.Bytes()
		if rec.code == http.StatusOK {
			if b, err := r.amendNIP11(body); err == nil {
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

// optionalStrings are the NIP-11 fields left out when empty.
var optionalStrings = []string{"description", "pubkey", "contact", "icon", "banner"}

func (r *Relay) amendNIP11(body []byte) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	for _, k := range optionalStrings {
		if string(doc[k]) == `""` {
			delete(doc, k)
		}
	}
	var lim map[string]json.RawMessage
	if json.Unmarshal(doc["limitation"], &lim) != nil || lim == nil {
		lim = map[string]json.RawMessage{}
	}
	for _, k := range []string{"created_at_lower_limit", "created_at_upper_limit"} {
		if string(lim[k]) == "0" {
			delete(lim, k)
		}
	}
	if r.opts.MaxFilters > 0 {
		lim["max_filters"] = json.RawMessage(strconv.Itoa(r.opts.MaxFilters))
	}
	b, err := json.Marshal(lim)
	if err != nil {
		return nil, err
	}
	doc["limitation"] = b
	return json.Marshal(doc)
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
