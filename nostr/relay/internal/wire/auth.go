package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip42"

	"vesper/nostr"
)

// auth answers the relay's NIP-42 challenge with key, once per connection:
// a relay that still refuses after a successful AUTH is not asked again.
func (c *Conn) Auth(ctx context.Context, key nostr.SecretKey) error {
	if key.IsZero() {
		return ErrAuthNoKey
	}
	c.authMu.Lock()
	defer c.authMu.Unlock()
	c.mu.Lock()
	done := c.authed
	c.mu.Unlock()
	if done {
		return fmt.Errorf("%w (already authenticated as %s)", ErrAuthRequired, key.PublicKey())
	}
	select {
	case <-c.challengeCh:
	case <-ctx.Done():
		return fmt.Errorf("relay: %s: no AUTH challenge: %w", c.URL, ctx.Err())
	case <-c.Ctx.Done():
		return c.Err()
	}
	c.mu.Lock()
	challenge := c.challenge
	c.mu.Unlock()
	ev := nip42.CreateUnsignedAuthEvent(challenge, key.PublicKey(), c.URL)
	if err := key.Sign(&ev); err != nil {
		return err
	}
	r, err := c.Send(ctx, "AUTH", &ev)
	if err != nil {
		return err
	}
	if !r.OK {
		return fmt.Errorf("relay: %s refused AUTH: %s", c.URL, r.Msg)
	}
	c.mu.Lock()
	c.authed = true
	c.mu.Unlock()
	c.Log.Debug("relay: authenticated", "relay", c.URL, "pubkey", key.PublicKey())
	return nil
}

// retryAfterAuth is what every read on c does with a refusal, REQ and
// NEG-OPEN alike: when err is the relay's "auth-required:" (in whatever
// form ReasonPrefix reads) and this read has not authenticated yet
// (*tried), it answers the challenge with key and reports true: the read
// is sent again, once. Otherwise err comes back, joined with why AUTH
// failed (ErrAuthNoKey without a key).
func (c *Conn) RetryAfterAuth(ctx context.Context, key nostr.SecretKey, err error, tried *bool) (bool, error) {
	if *tried || !errors.Is(err, ErrAuthRequired) {
		return false, err
	}
	*tried = true
	if aerr := c.Auth(ctx, key); aerr != nil {
		return false, fmt.Errorf("%w (%w)", err, aerr)
	}
	return true, nil
}

// authFirst authenticates before the first read or write on a relay whose
// NIP-11 document says auth_required, instead of having the first query
// and publication refused and sent again. A challenge the relay sent at
// connect is answered at once; otherwise the relay is asked for a filter
// that matches nothing, which an auth-required relay refuses with
// "auth-required:" and a challenge (khatru sends its challenge only then).
// A relay that serves the probe without a challenge is left alone: it is
// still answered if a later query or write asks. The error is the
// connection's or the AUTH's; callers go on unless the connection died.
func (c *Conn) AuthFirst(ctx context.Context, key nostr.SecretKey, timeout time.Duration) error {
	if key.IsZero() || c.IsAuthed() {
		return nil
	}
	select {
	case <-c.challengeCh:
	default:
		s, err := c.Subscribe(gn.Filters{{IDs: []string{NoEvent}, Limit: 1}}, func(*gn.Event) {})
		if err != nil {
			return err
		}
		err = c.WaitEOSE(ctx, s, timeout)
		c.Unsubscribe(s)
		if c.Ctx.Err() != nil {
			return c.Err()
		}
		select {
		case <-c.challengeCh:
		default:
			if !errors.Is(err, ErrAuthRequired) {
				return err // served, or refused for another reason: nothing to answer
			}
			// The challenge may come just behind the CLOSED that asks
			// for it.
			t := time.NewTimer(timeout)
			defer t.Stop()
			select {
			case <-c.challengeCh:
			case <-t.C:
				return err
			case <-c.Ctx.Done():
				return c.Err()
			}
		}
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return c.Auth(actx, key)
}

// isAuthed reports whether an AUTH on this connection has succeeded.
func (c *Conn) IsAuthed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.authed
}

// NoEvent is the probe's filter: an id no event has (an event with it
// would be a sha256 preimage of zero).
var NoEvent = strings.Repeat("0", 64)
