package relay

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// WatchOptions tune Watch. Zero values take the defaults in brackets.
type WatchOptions struct {
	// Timeout bounds a connect and the wait for a subscription's EOSE [10s].
	Timeout time.Duration
	// MinBackoff and MaxBackoff bound the reconnect delay [250ms, 30s].
	MinBackoff, MaxBackoff time.Duration
	// PingInterval is how often a quiet connection is checked [15s].
	PingInterval time.Duration
	// OnStatus is told, per relay, when the stored events have all been
	// delivered (up, with err nil: the subscription is live) and when a
	// connection or an attempt failed (up false, err set). It may be called
	// from several goroutines at once.
	OnStatus func(relay string, up bool, err error)
	// Guard names the relays someone else named (a nevent's hints): they
	// are dialed through netguard.
	Guard Guard
	// Key answers NIP-42 AUTH, before the subscription on a relay whose
	// NIP-11 document says auth_required, and when the subscription is
	// refused "auth-required:" (zero: no AUTH).
	Key    nostr.SecretKey
	Logger *slog.Logger
}

// Watch keeps one subscription per relay open on filters until ctx is done:
// every checked event the relay holds, then every new one as it arrives, is
// passed to deliver (once per relay that sends it; deliver may be called
// from several goroutines at once and must not block for long). A dropped
// connection is reopened with backoff and the subscription resent whole, so
// events published while it was down still arrive. It returns when ctx is
// done.
//
// Unlike Client, Watch keeps no cursor and pages nothing: it is for a few
// small filters (one match) read for minutes, as `vesper wait` does.
func Watch(ctx context.Context, relays []string, filters []gn.Filter, opts WatchOptions, deliver func(Received)) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 250 * time.Millisecond
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = 15 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	status := func(url string, up bool, err error) {
		if opts.OnStatus != nil {
			opts.OnStatus(url, up, err)
		}
	}
	var wg sync.WaitGroup
	for _, raw := range relays {
		url := gn.NormalizeURL(raw)
		if url == "" {
			status(raw, false, errors.New("relay: bad relay URL "+raw))
			continue
		}
		wg.Go(func() {
			bo := backoff{min: opts.MinBackoff, max: opts.MaxBackoff}
			for ctx.Err() == nil {
				healthy, err := watchOnce(ctx, url, filters, opts, deliver, status)
				if ctx.Err() != nil {
					return
				}
				status(url, false, err)
				if healthy {
					bo.reset()
				}
				t := time.NewTimer(bo.next())
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
			}
		})
	}
	wg.Wait()
}

// watchOnce is one connection's life: subscribe, wait for EOSE, then stay
// until the connection or the subscription ends. healthy reports that the
// subscription went live, which resets the backoff.
func watchOnce(ctx context.Context, url string, filters []gn.Filter, opts WatchOptions,
	deliver func(Received), status func(string, bool, error)) (healthy bool, err error) {
	guard := opts.Guard.policy(url)
	info := limits.GetVia(ctx, url, opts.Timeout, guard)
	dctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	cn, err := wire.Dial(dctx, url, opts.Logger, func(string) {}, wire.Limits{Guard: guard})
	cancel()
	if err != nil {
		return false, err
	}
	defer cn.Close(wire.ErrClosed)
	stop := context.AfterFunc(ctx, func() { cn.Close(context.Cause(ctx)) })
	defer stop()
	if info.AuthRequired() {
		if err := cn.AuthFirst(ctx, opts.Key, opts.Timeout); err != nil && cn.Ctx.Err() != nil {
			return false, err
		}
	}
	var s *wire.Sub
	authTried := false
	for {
		s, err = cn.Subscribe(filters, func(ev *gn.Event) {
			deliver(Received{Event: ev, Relay: url})
		})
		if err != nil {
			return false, err
		}
		err = cn.WaitEOSE(ctx, s, opts.Timeout)
		if err == nil {
			break
		}
		retry, err := cn.RetryAfterAuth(ctx, opts.Key, err, &authTried)
		if !retry {
			return false, err
		}
	}
	status(url, true, nil)
	ping := time.NewTicker(opts.PingInterval)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-cn.Ctx.Done():
			return true, cn.Err()
		case reason := <-s.Closed():
			return true, wire.NewClosedError(url, reason)
		case <-ping.C:
			pctx, cancel := context.WithTimeout(ctx, opts.Timeout)
			err := cn.Ping(pctx)
			cancel()
			if err != nil && !cn.Delivering.Load() {
				return true, err
			}
		}
	}
}
