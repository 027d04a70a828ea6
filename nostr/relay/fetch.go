package relay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// FetchOptions tune FetchWith.
type FetchOptions struct {
	// Timeout bounds each relay, all its pages together [30s].
	Timeout time.Duration
	// Key answers NIP-42 AUTH; zero means no AUTH.
	Key nostr.SecretKey
	// PageLimit is the "limit" of each query [500, or the relay's NIP-11
	// max_limit if lower].
	PageLimit int
	// OnReject counts events not delivered, as Config.OnReject.
	OnReject func(relay, reason string)
	Logger   *slog.Logger
	// Guard names the relays someone else named (a nevent's hints): they
	// are dialed through netguard.
	Guard Guard
}

// Fetch queries every relay in parallel until each has sent all it holds
// for the filters (paging past relay caps), checks every event, and returns
// them deduplicated by id (the first relay to send one is named), ordered by
// created_at then id. A filter's Limit, if set, caps the events per relay
// and filter. err joins the failures of the relays that failed; the events
// of the others are returned with it.
func Fetch(ctx context.Context, relays []string, filters []gn.Filter, timeout time.Duration) ([]Received, error) {
	return FetchWith(ctx, relays, filters, FetchOptions{Timeout: timeout})
}

// MatchFilters fetch one match: the challenge by id, and every event of
// the match kinds with a g tag naming it (PROTOCOL.md section 2). The challenge is asked by
// id and kind: a relay that reads some kinds only to authenticated
// clients (strfry's restricted reads) asks for AUTH only when every
// filter names kinds, and serves a filter by id alone with those kinds
// silently left out.
func MatchFilters(matchID string) []gn.Filter {
	return []gn.Filter{
		{IDs: []string{matchID}, Kinds: []int{nostr.KindChallenge}},
		{Kinds: wire.MatchKinds(), Tags: gn.TagMap{nostr.MatchTag: {matchID}}},
	}
}

// FetchWith is Fetch with options.
func FetchWith(ctx context.Context, relays []string, filters []gn.Filter, opts FetchOptions) ([]Received, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.PageLimit <= 0 {
		opts.PageLimit = 500
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var (
		mu   sync.Mutex
		byID = make(map[string]Received)
		errs []error
		wg   sync.WaitGroup
	)
	for _, raw := range relays {
		wg.Go(func() {
			url := gn.NormalizeURL(raw)
			if url == "" {
				mu.Lock()
				errs = append(errs, fmt.Errorf("relay: bad relay URL %q", raw))
				mu.Unlock()
				return
			}
			rctx, cancel := context.WithTimeout(ctx, opts.Timeout)
			defer cancel()
			err := fetchOne(rctx, url, filters, opts, func(ev *gn.Event) {
				mu.Lock()
				defer mu.Unlock()
				if _, ok := byID[ev.ID]; !ok {
					byID[ev.ID] = Received{Event: ev, Relay: url}
				}
			})
			if err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: %w", url, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	out := make([]Received, 0, len(byID))
	for _, r := range byID {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Received) int {
		return cmp.Or(cmp.Compare(a.Event.CreatedAt, b.Event.CreatedAt), cmp.Compare(a.Event.ID, b.Event.ID))
	})
	return out, errors.Join(errs...)
}

func fetchOne(ctx context.Context, url string, filters []gn.Filter, opts FetchOptions, deliver func(*gn.Event)) error {
	guard := opts.Guard.policy(url)
	info := limits.GetVia(ctx, url, opts.Timeout, guard)
	p := &wire.Pager{Key: opts.Key, Timeout: opts.Timeout}
	p.Limit, p.CapKnown = info.PageLimit(opts.PageLimit)
	cn, err := wire.Dial(ctx, url, opts.Logger, func(reason string) {
		if opts.OnReject != nil {
			opts.OnReject(url, reason)
		}
	}, wire.Limits{Guard: guard})
	if err != nil {
		return err
	}
	defer cn.CloseWait(wire.ErrClosed) // no event delivered after fetchOne returns: the caller reads what was delivered
	if info.AuthRequired() {
		if err := cn.AuthFirst(ctx, opts.Key, opts.Timeout); err != nil && cn.Ctx.Err() != nil {
			return err
		}
	}
	p.Conn = cn
	authed := cn.IsAuthed()
	for i, f := range filters {
		if _, err := p.Run(ctx, f, f.Limit, deliver); err != nil {
			return err
		}
		if !authed && cn.IsAuthed() {
			// strfry serves a filter that names no restricted kind (by
			// ids, say) to anyone, but withholds the events of those kinds
			// from it without a word; only a filter of restricted kinds
			// alone makes it ask for AUTH. So what was read before the
			// connection authenticated is read again.
			authed = true
			for _, g := range filters[:i] {
				if _, err := p.Run(ctx, g, g.Limit, deliver); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
