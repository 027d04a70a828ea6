package relay

import (
	"math/rand/v2"
	"time"
)

// backoff is exponential with jitter: each wait is drawn from the upper
// half of the current step, so relays that failed together do not retry in
// lockstep.
type backoff struct {
	min, max, cur time.Duration
}

func (b *backoff) next() time.Duration {
	switch {
	case b.cur == 0:
		b.cur = b.min
	case b.cur < b.max:
		b.cur = min(2*b.cur, b.max)
	}
	half := b.cur / 2
	return half + rand.N(half+1)
}

func (b *backoff) reset() { b.cur = 0 }
