package relay

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// RelayInfo is what a relay says of itself (NIP-11) and how this package
// adapts to it: what `vesper relays` prints.
type RelayInfo struct {
	URL string `json:"url"`
	// NIP11 says the relay served a usable NIP-11 document; NIP11Error
	// says why not.
	NIP11      bool   `json:"nip11"`
	NIP11Error string `json:"nip11_error,omitempty"`

	Name          string `json:"name"`
	Description   string `json:"description"`
	Software      string `json:"software"`
	Version       string `json:"version"`
	Contact       string `json:"contact"`
	PubKey        string `json:"pubkey"`
	SupportedNIPs []int  `json:"supported_nips"`
	// NIP77 says the document lists NIP-77 (negentropy), which reconcile.Sync then
	// uses without probing; NIP42 that it lists AUTH.
	NIP77 bool `json:"nip77"`
	NIP42 bool `json:"nip42"`

	Limitation Limitation `json:"limitation"`
	// Client is what the client does with the limitation.
	Client Adapted `json:"client"`

	// Websocket says the relay answered a websocket connection and a query
	// (Probe: "eose", or "closed: REASON"); WebsocketError why not.
	Websocket      bool   `json:"websocket"`
	Probe          string `json:"probe,omitempty"`
	WebsocketError string `json:"websocket_error,omitempty"`
	LatencyMS      int64  `json:"latency_ms"`
}

// Limitation is a NIP-11 document's limitation object; 0 and false are
// "not announced".
type Limitation struct {
	MaxMessageLength    int   `json:"max_message_length"`
	MaxSubscriptions    int   `json:"max_subscriptions"`
	MaxFilters          int   `json:"max_filters"`
	MaxLimit            int   `json:"max_limit"`
	DefaultLimit        int   `json:"default_limit"`
	MaxSubidLength      int   `json:"max_subid_length"`
	MaxEventTags        int   `json:"max_event_tags"`
	MaxContentLength    int   `json:"max_content_length"`
	MinPowDifficulty    int   `json:"min_pow_difficulty"`
	CreatedAtLowerLimit int64 `json:"created_at_lower_limit"`
	CreatedAtUpperLimit int64 `json:"created_at_upper_limit"`
	AuthRequired        bool  `json:"auth_required"`
	PaymentRequired     bool  `json:"payment_required"`
	RestrictedWrites    bool  `json:"restricted_writes"`
}

// Adapted is how the client uses a relay given its limitation.
type Adapted struct {
	PageLimit   int  `json:"page_limit"`    // "limit" of each query
	ShortIsLast bool `json:"short_is_last"` // max_limit known: a short page ends a query
	FiltersPer  int  `json:"filters_per_req"`
	REQBytes    int  `json:"max_req_bytes"`
	LiveSubs    int  `json:"live_subscriptions"` // subscriptions kept open at once
	AuthFirst   bool `json:"auth_first"`         // AUTH before the first query (auth_required, with a key)
	// Writes is "yes", or why a publication now would skip the relay
	// ("restricted_writes", "auth_required and no key ...").
	Writes string `json:"writes"`
}

// InspectOptions tune Inspect.
type InspectOptions struct {
	Timeout   time.Duration   // each relay, NIP-11 and the probe [10s]
	Key       nostr.SecretKey // for Adapted: AUTH and writes (zero: none)
	PageLimit int             // our page size before max_limit [500]
	MayWrite  []string        // as Config.MayWrite
	Now       func() time.Time
}

// Inspect asks each relay, in parallel, for its NIP-11 document (fresh,
// not the cached one) and opens a websocket to send it a query that
// matches nothing, and reports what was learned, in the order of urls.
func Inspect(ctx context.Context, urls []string, opts InspectOptions) []RelayInfo {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.PageLimit <= 0 {
		opts.PageLimit = 500
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	out := make([]RelayInfo, len(urls))
	var wg sync.WaitGroup
	for i, raw := range urls {
		wg.Go(func() { out[i] = inspectOne(ctx, raw, opts) })
	}
	wg.Wait()
	return out
}

func inspectOne(ctx context.Context, raw string, opts InspectOptions) RelayInfo {
	url := gn.NormalizeURL(raw)
	ri := RelayInfo{URL: url, SupportedNIPs: []int{}}
	if url == "" {
		ri.URL, ri.NIP11Error, ri.WebsocketError = raw, "bad relay URL", "bad relay URL"
		return ri
	}
	info, err := limits.Read(ctx, url, opts.Timeout)
	if err != nil {
		ri.NIP11Error = wire.Clip(err.Error())
	}
	if d := info.Doc; d != nil {
		ri.NIP11 = true
		ri.Name, ri.Description, ri.Software, ri.Version = wire.Clip(d.Name), wire.Clip(d.Description), wire.Clip(d.Software), wire.Clip(d.Version)
		ri.Contact, ri.PubKey = wire.Clip(d.Contact), wire.Clip(d.PubKey)
		ri.SupportedNIPs = nipNumbers(d.SupportedNIPs)
		ri.NIP77, ri.NIP42 = slices.Contains(ri.SupportedNIPs, 77), slices.Contains(ri.SupportedNIPs, 42)
		if l := d.Limitation; l != nil {
			ri.Limitation = Limitation{MaxMessageLength: l.MaxMessageLength, MaxSubscriptions: l.MaxSubscriptions,
				MaxLimit: l.MaxLimit, DefaultLimit: l.DefaultLimit, MaxSubidLength: l.MaxSubidLength,
				MaxEventTags: l.MaxEventTags, MaxContentLength: l.MaxContentLength, MinPowDifficulty: l.MinPowDifficulty,
				CreatedAtLowerLimit: l.CreatedAtLowerLimit, CreatedAtUpperLimit: l.CreatedAtUpperLimit,
				AuthRequired: l.AuthRequired, PaymentRequired: l.PaymentRequired, RestrictedWrites: l.RestrictedWrites}
		}
		ri.Limitation.MaxFilters = info.MaxFilters
	}
	lim := limits.Of(info)
	ri.Client = Adapted{FiltersPer: lim.MaxFilters, REQBytes: lim.MaxMessage, LiveSubs: lim.LiveSubs(),
		AuthFirst: info.AuthRequired() && !opts.Key.IsZero(), Writes: "yes"}
	ri.Client.PageLimit, ri.Client.ShortIsLast = info.PageLimit(opts.PageLimit)
	now := opts.Now()
	probe := &nostr.Event{Kind: nostr.KindMove, CreatedAt: gn.Timestamp(now.Unix()), Tags: nostr.Tags{}}
	if why := writeRefusal(info.Doc, probe, opts.Key, now, mayWrite(opts.MayWrite, url)); why != "" {
		ri.Client.Writes = why
	}
	start := time.Now()
	ri.Probe, err = probeREQ(ctx, url, opts.Timeout)
	ri.LatencyMS = time.Since(start).Milliseconds()
	if err != nil {
		ri.WebsocketError = wire.Clip(err.Error())
	} else {
		ri.Websocket = true
	}
	return ri
}

// probeREQ connects and asks for nothing, within timeout.
func probeREQ(ctx context.Context, url string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cn, err := wire.Dial(ctx, url, slog.New(slog.DiscardHandler), nil)
	if err != nil {
		return "", err
	}
	defer cn.Close(wire.ErrClosed)
	s, err := cn.Subscribe(gn.Filters{{IDs: []string{wire.NoEvent}, Limit: 1}}, func(*gn.Event) {})
	if err != nil {
		return "", err
	}
	err = cn.WaitEOSE(ctx, s, timeout)
	var ce *wire.ClosedError
	switch {
	case err == nil:
		return "eose", nil
	case errors.As(err, &ce):
		return "closed: " + ce.Reason, nil
	}
	return "", err
}

// nipNumbers reads supported_nips, which JSON decodes as numbers (float64)
// and some relays send as strings; anything else is left out.
func nipNumbers(raw []any) []int {
	out := []int{}
	for _, v := range raw {
		switch n := v.(type) {
		case float64:
			if n == math.Trunc(n) && n >= 0 && n < 100000 {
				out = append(out, int(n))
			}
		case int:
			out = append(out, n)
		}
		if len(out) == 200 {
			break
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
