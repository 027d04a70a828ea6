package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"
	"github.com/nbd-wtf/go-nostr/nip13"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// PublishResult is one relay's answer to a publication. Err is set when no
// answer came (connection, timeout, or the relay skipped because its NIP-11
// document says the write would be refused); otherwise OK and Message are
// the relay's OK message, with a "duplicate:" refusal counted as OK.
type PublishResult struct {
	Relay   string
	OK      bool
	Message string
	Err     error
	// Skipped, when set, says why the event was not sent to the relay at
	// all: its NIP-11 document rules it out ("restricted_writes",
	// "created_at_upper_limit 60: ...", ...). Err then wraps
	// ErrWriteRestricted with the same reason.
	Skipped string
}

// ErrWriteRestricted is the Err of a relay skipped because of its NIP-11
// limitations.
var ErrWriteRestricted = errors.New("relay: writes restricted by the relay's NIP-11 document")

// PublishOptions tune PublishWith.
type PublishOptions struct {
	// Timeout bounds each relay: NIP-11, connect, AUTH, OK [10s].
	Timeout time.Duration
	// Key answers NIP-42 AUTH; zero means no AUTH.
	Key nostr.SecretKey
	// IgnoreNIP11 writes even where the NIP-11 document says the write
	// would be refused.
	IgnoreNIP11 bool
	// MayWrite lists relays whose restricted_writes or payment_required
	// does not stop the publication: relays whose policy admits this key
	// (it is on their list, or paid). Elsewhere those relays are skipped.
	MayWrite []string
	// Now is the clock the relays' created_at limits are checked against
	// [time.Now].
	Now    func() time.Time
	Logger *slog.Logger
	// Guard names the relays someone else named (the read relays of a
	// tagged player, a nevent's hints): they are dialed through netguard.
	Guard Guard
}

// Publish sends ev to every relay in parallel, each within timeout, and
// reports each relay's answer in the order of relays.
func Publish(ctx context.Context, relays []string, ev *nostr.Event, timeout time.Duration) []PublishResult {
	return PublishWith(ctx, relays, ev, PublishOptions{Timeout: timeout})
}

// PublishWith is Publish with AUTH and the other options.
func PublishWith(ctx context.Context, relays []string, ev *nostr.Event, opts PublishOptions) []PublishResult {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	results := make([]PublishResult, len(relays))
	var wg sync.WaitGroup
	for i, u := range relays {
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, opts.Timeout)
			defer cancel()
			results[i] = publishOne(rctx, u, ev, opts)
		})
	}
	wg.Wait()
	return results
}

// Accepted lists the relays that took the event.
func Accepted(results []PublishResult) []string {
	var out []string
	for _, r := range results {
		if r.OK {
			out = append(out, r.Relay)
		}
	}
	return out
}

// rateLimitPause is the first wait after a "rate-limited:" refusal; it
// doubles while the publication's timeout allows.
const rateLimitPause = 250 * time.Millisecond

func publishOne(ctx context.Context, rawURL string, ev *nostr.Event, opts PublishOptions) PublishResult {
	url := gn.NormalizeURL(rawURL)
	res := PublishResult{Relay: url}
	if url == "" {
		res.Relay, res.Err = rawURL, fmt.Errorf("relay: bad relay URL %q", rawURL)
		return res
	}
	guard := opts.Guard.policy(url)
	info := limits.GetVia(ctx, url, opts.Timeout, guard)
	if !opts.IgnoreNIP11 {
		now := time.Now
		if opts.Now != nil {
			now = opts.Now
		}
		if why := writeRefusal(info.Doc, ev, opts.Key, now(), mayWrite(opts.MayWrite, url)); why != "" {
			return skipped(res, why)
		}
	}
	cn, err := wire.Dial(ctx, url, opts.Logger, nil, wire.Limits{Guard: guard})
	if err != nil {
		res.Err = err
		return res
	}
	defer cn.Close(wire.ErrClosed)
	if info.AuthRequired() {
		cn.AuthFirst(ctx, opts.Key, opts.Timeout) // a failure shows in the OK that comes next
	}
	return sendEvent(ctx, cn, ev, opts.Key, opts.Logger, res)
}

// skipped is the result of a relay not written to, and why.
func skipped(res PublishResult, why string) PublishResult {
	res.Skipped = why
	res.Err = fmt.Errorf("%w: %s", ErrWriteRestricted, why)
	return res
}

// mayWrite reports whether url is in list (compared normalised).
func mayWrite(list []string, url string) bool {
	for _, u := range list {
		if gn.NormalizeURL(u) == url {
			return true
		}
	}
	return false
}

// sendEvent sends ev on cn until the relay's answer is final: AUTH (once,
// with key) when it asks, a growing wait while it says "rate-limited:",
// within ctx. cn may be shared with a client's session and other
// publications: an AUTH that another user of cn completed meanwhile counts
// as this one's.
func sendEvent(ctx context.Context, cn *wire.Conn, ev *nostr.Event, key nostr.SecretKey, log *slog.Logger, res PublishResult) PublishResult {
	pause := rateLimitPause
	authTried := false
	for {
		r, err := cn.Send(ctx, "EVENT", ev)
		if err != nil {
			res.Err = err
			return res
		}
		prefix := wire.ReasonPrefix(r.Msg)
		res.OK, res.Message = r.OK || prefix == wire.PrefixDuplicate, r.Msg
		switch {
		case res.OK:
			return res
		case prefix == wire.PrefixAuthRequired && !authTried && !key.IsZero():
			authTried = true
			if err := cn.Auth(ctx, key); err != nil && !cn.IsAuthed() {
				log.Debug("relay: AUTH failed", "relay", cn.URL, "err", err)
				return res
			}
		case prefix == wire.PrefixRateLimited:
			t := time.NewTimer(pause)
			select {
			case <-ctx.Done():
				t.Stop()
				return res
			case <-t.C:
			}
			pause *= 2
		default:
			return res
		}
	}
}

// writeRefusal says why a relay's NIP-11 document rules the write out, or
// "" when it does not (or there is no document). may says the caller
// marked the relay as one whose write policy admits this key.
func writeRefusal(info *nip11.RelayInformationDocument, ev *nostr.Event, key nostr.SecretKey, now time.Time, may bool) string {
	if info == nil || info.Limitation == nil {
		return ""
	}
	l := info.Limitation
	switch {
	case l.PaymentRequired && !may:
		return "payment_required"
	case l.RestrictedWrites && !may:
		return "restricted_writes"
	case l.AuthRequired && key.IsZero():
		return "auth_required and no key to authenticate with"
	case l.MinPowDifficulty > 0 && nip13.Difficulty(ev.ID) < l.MinPowDifficulty:
		return fmt.Sprintf("min_pow_difficulty %d", l.MinPowDifficulty)
	case l.MaxContentLength > 0 && len(ev.Content) > l.MaxContentLength:
		return fmt.Sprintf("max_content_length %d", l.MaxContentLength)
	case l.MaxMessageLength > 0 && len(nostr.MarshalEvent(ev))+len(`["EVENT",]`) > l.MaxMessageLength:
		return fmt.Sprintf("max_message_length %d", l.MaxMessageLength)
	case l.MaxEventTags > 0 && len(ev.Tags) > l.MaxEventTags:
		return fmt.Sprintf("max_event_tags %d", l.MaxEventTags)
	}
	return createdAtRefusal(l.CreatedAtLowerLimit, l.CreatedAtUpperLimit, int64(ev.CreatedAt), now.Unix())
}

// absoluteLimit separates the two readings of NIP-11's created_at limits:
// relays announce them as seconds from now (a year, a few minutes), NIP-22
// once wrote them as unix times. A value this large (2001-09-09) can only
// be a time; a smaller one is a span.
const absoluteLimit = 1_000_000_000

// createdAtRefusal says why a relay with these created_at limits would
// refuse an event stamped at, or "" when it would not; 0 is no limit.
func createdAtRefusal(lower, upper, at, now int64) string {
	switch {
	case lower >= absoluteLimit && at < lower:
		return fmt.Sprintf("created_at_lower_limit %d: the event is stamped before it", lower)
	case lower > 0 && lower < absoluteLimit && at < now-lower:
		return fmt.Sprintf("created_at_lower_limit %d: the event is stamped %d s in the past", lower, now-at)
	case upper >= absoluteLimit && at > upper:
		return fmt.Sprintf("created_at_upper_limit %d: the event is stamped after it", upper)
	case upper > 0 && upper < absoluteLimit && at > now+upper:
		return fmt.Sprintf("created_at_upper_limit %d: the event is stamped %d s in the future", upper, at-now)
	}
	return ""
}
