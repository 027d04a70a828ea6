package relay

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr/relay/internal/wire"
)

// backfiller runs one session's backfill of the game filters.
type backfiller struct {
	c       *Client
	url     string
	out     chan<- Received
	p       *wire.Pager
	inFirst bool // the relay has not settled yet: count against BackfillEvents
	fb      *first
	deliver func(*gn.Event)
}

// run backfills [cursor - SafetyMargin, start], or, when bf holds the
// progress of an unfinished backfill, first the gap since that one started
// and then what it had left. Progress is sent (or saved) after each page,
// so a session cut short, by a crash or the page budget, loses at most a
// page. progressed reports that the window shrank.
func (b *backfiller) run(ctx context.Context, cursor, start int64, bf Backfill) (delivered int, progressed bool, err error) {
	margin := int64(b.c.cfg.SafetyMargin / time.Second)
	filters := wire.GameFilters(nil)
	// Counted on the dispatcher goroutine, read on this one, and a page
	// that timed out may still be arriving.
	var n atomic.Int64
	deliver := func(ev *gn.Event) {
		n.Add(1)
		b.deliver(ev)
		b.countFirst()
	}
	if len(bf.Until) != len(filters) || bf.Top > start || bf.Top <= 0 {
		bf = Backfill{} // none, or from a build with other filters
	}
	if !bf.IsZero() {
		// The gap since the unfinished backfill started, whole: it is short
		// (the time the last session lasted), and only once it is done is
		// [Until, start] covered and the saved progress moved.
		gap := gn.Timestamp(max(0, bf.Top-margin))
		for _, f := range filters {
			f.Since = &gap
			if _, err := b.p.Run(ctx, f, 0, deliver); err != nil {
				return int(n.Load()), false, err
			}
		}
		bf.Top = start
		b.save(ctx, bf)
	} else {
		since := max(0, cursor-margin)
		bf = Backfill{Since: since, Top: start, Until: make([]int64, len(filters))}
		for i := range bf.Until {
			bf.Until[i] = start
		}
	}
	for i, f := range filters {
		if err := b.filter(ctx, &bf, i, f, deliver, &progressed); err != nil {
			return int(n.Load()), progressed, err
		}
	}
	return int(n.Load()), true, nil
}

// countFirst counts an event of the relay's first backfill against
// Config.BackfillEvents, and settles the relay when it is used up.
func (b *backfiller) countFirst() {
	c := b.c
	if !b.inFirst {
		return
	}
	if b.fb.events++; b.fb.events == c.cfg.BackfillEvents {
		if c.settle(b.url) {
			c.cfg.Logger.Warn("relay: first backfill over its event budget; not waiting for it", "relay", b.url, "events", b.fb.events)
		}
	}
}

// filter backfills game filter i over [bf.Since, bf.Until[i]], saving
// the progress after each page and once it is done.
func (b *backfiller) filter(ctx context.Context, bf *Backfill, i int, f gn.Filter, deliver func(*gn.Event), progressed *bool) error {
	if bf.Until[i] < bf.Since {
		return nil
	}
	since, until := gn.Timestamp(bf.Since), gn.Timestamp(bf.Until[i])
	f.Since, f.Until = &since, &until
	_, err := b.p.RunFrom(ctx, f, 0, deliver, func(next gn.Timestamp) {
		if int64(next) < bf.Until[i] {
			*progressed = true
			bf.Until = slices.Clone(bf.Until)
			bf.Until[i] = int64(next)
			b.save(ctx, *bf)
		}
	})
	if err != nil {
		return err
	}
	bf.Until = slices.Clone(bf.Until)
	bf.Until[i] = bf.Since - 1 // done
	b.save(ctx, *bf)
	*progressed = true
	return nil
}

// save records bf behind the events delivered so far.
func (b *backfiller) save(ctx context.Context, bf Backfill) {
	c := b.c
	if c.cfg.MarkCursors {
		select {
		case b.out <- Received{Relay: b.url, Backfill: &bf}:
		case <-ctx.Done():
		}
		return
	}
	bs, ok := c.cfg.Cursors.(BackfillStore)
	if !ok || len(b.out) > 0 {
		return
	}
	if err := bs.SetBackfill(ctx, b.url, bf.Since, bf.Top, bf.Until); err != nil && ctx.Err() == nil {
		c.cfg.Logger.Error("relay: saving backfill progress", "relay", b.url, "err", err)
	}
}
