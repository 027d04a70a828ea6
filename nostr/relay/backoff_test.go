package relay

import (
	"errors"
	"testing"
	"time"

	"vesper/nostr/relay/internal/wire"
)

func TestBackoff(t *testing.T) {
	b := backoff{min: 100 * time.Millisecond, max: 800 * time.Millisecond}
	steps := []time.Duration{100, 200, 400, 800, 800, 800}
	for i, step := range steps {
		step *= time.Millisecond
		got := b.next()
		if got < step/2 || got > step {
			t.Errorf("wait %d: got %v, want within [%v, %v]", i, got, step/2, step)
		}
	}
	b.reset()
	if got := b.next(); got > 100*time.Millisecond {
		t.Errorf("after reset: got %v, want at most the minimum", got)
	}
}

func TestClosedErrorKinds(t *testing.T) {
	tests := []struct {
		reason      string
		auth, limit bool
	}{
		{"auth-required: please", true, false},
		{"rate-limited: slow down", false, true},
		{"blocked: no", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			err := wire.NewClosedError("ws://x", tt.reason)
			if got := errors.Is(err, wire.ErrAuthRequired); got != tt.auth {
				t.Errorf("Is(wire.ErrAuthRequired): got %v, want %v", got, tt.auth)
			}
			if got := errors.Is(err, wire.ErrRateLimited); got != tt.limit {
				t.Errorf("Is(wire.ErrRateLimited): got %v, want %v", got, tt.limit)
			}
		})
	}
}
