package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"
	"github.com/nbd-wtf/go-nostr/nip13"

	"vesper/nostr"
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
	// IgnoreNIP11 writes even where the NIP-11 document says writes are
	// restricted (a relay that whitelists this key, say).
	IgnoreNIP11 bool
	Logger      *slog.Logger
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
	if !opts.IgnoreNIP11 {
		if why := writeRefusal(fetchInfo(ctx, url, opts.Timeout), ev, opts.Key); why != "" {
			res.Err = fmt.Errorf("%w: %s", ErrWriteRestricted, why)
			return res
		}
	}
	cn, err := dial(ctx, url, opts.Logger, nil)
	if err != nil {
		res.Err = err
		return res
	}
	defer cn.close(ErrClosed)
	return sendEvent(ctx, cn, ev, opts.Key, opts.Logger, res)
}

// sendEvent sends ev on cn until the relay's answer is final: AUTH (once,
// with key) when it asks, a growing wait while it says "rate-limited:",
// within ctx. cn may be shared with a client's session and other
// publications: an AUTH that another user of cn completed meanwhile counts
// as this one's.
func sendEvent(ctx context.Context, cn *conn, ev *nostr.Event, key nostr.SecretKey, log *slog.Logger, res PublishResult) PublishResult {
	pause := rateLimitPause
	authTried := false
	for {
		r, err := cn.send(ctx, "EVENT", ev)
		if err != nil {
			res.Err = err
			return res
		}
		res.OK, res.Message = r.ok || strings.HasPrefix(r.msg, "duplicate:"), r.msg
		switch {
		case res.OK:
			return res
		case strings.HasPrefix(r.msg, "auth-required:") && !authTried && !key.IsZero():
			authTried = true
			if err := cn.auth(ctx, key); err != nil && !cn.isAuthed() {
				log.Debug("relay: AUTH failed", "relay", cn.url, "err", err)
				return res
			}
		case strings.HasPrefix(r.msg, "rate-limited:"):
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
// "" when it does not (or there is no document).
func writeRefusal(info *nip11.RelayInformationDocument, ev *nostr.Event, key nostr.SecretKey) string {
	if info == nil || info.Limitation == nil {
		return ""
	}
	l := info.Limitation
	switch {
	case l.PaymentRequired:
		return "payment_required"
	case l.RestrictedWrites:
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
	return ""
}
