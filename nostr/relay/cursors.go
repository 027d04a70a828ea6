package relay

import (
	"context"
	"slices"
	"sync"

	"vesper/nostr/relay/internal/wire"
)

// Cursors stores, per relay, the created_at up to which the client has
// every event (store.Store implements it). Backfill starts from the cursor
// minus Config.SafetyMargin.
type Cursors interface {
	Cursor(ctx context.Context, relay string) (int64, error)
	SetCursor(ctx context.Context, relay string, createdAt int64) error
}

// MemCursors keeps cursors in memory, for tests and one-shot tools.
type MemCursors struct {
	mu sync.Mutex
	m  map[string]int64
	bf map[string]Backfill
}

// NewMemCursors returns empty in-memory cursors.
func NewMemCursors() *MemCursors { return &MemCursors{m: make(map[string]int64)} }

func (m *MemCursors) Cursor(_ context.Context, relay string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[relay], nil
}

func (m *MemCursors) SetCursor(_ context.Context, relay string, createdAt int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[relay] = createdAt
	return nil
}

// Backfill is the progress of an unfinished backfill on one relay
// (wire.Backfill).
type Backfill = wire.Backfill

// BackfillStore keeps backfill progress; Cursors that implement it (the
// store, MemCursors) make backfills resumable.
type BackfillStore interface {
	Backfill(ctx context.Context, relay string) (since, top int64, until []int64, err error)
	// SetBackfill replaces the relay's progress; an empty until clears it.
	SetBackfill(ctx context.Context, relay string, since, top int64, until []int64) error
}

func loadBackfill(ctx context.Context, cs Cursors, relay string) (Backfill, error) {
	bs, ok := cs.(BackfillStore)
	if !ok {
		return Backfill{}, nil
	}
	since, top, until, err := bs.Backfill(ctx, relay)
	return Backfill{Since: since, Top: top, Until: until}, err
}

// SaveMark saves a cursor mark (a Received without an Event, sent with
// Config.MarkCursors) once the events before it are stored: the cursor,
// then the backfill progress it carries, if any.
func SaveMark(ctx context.Context, cs Cursors, m Received) error {
	if m.Event != nil {
		return nil
	}
	if m.Cursor > 0 {
		if err := cs.SetCursor(ctx, m.Relay, m.Cursor); err != nil {
			return err
		}
	}
	if m.Backfill != nil {
		if bs, ok := cs.(BackfillStore); ok {
			return bs.SetBackfill(ctx, m.Relay, m.Backfill.Since, m.Backfill.Top, m.Backfill.Until)
		}
	}
	return nil
}

func (m *MemCursors) Backfill(_ context.Context, relay string) (since, top int64, until []int64, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.bf[relay]
	return b.Since, b.Top, slices.Clone(b.Until), nil
}

func (m *MemCursors) SetBackfill(_ context.Context, relay string, since, top int64, until []int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bf == nil {
		m.bf = make(map[string]Backfill)
	}
	if len(until) == 0 {
		delete(m.bf, relay)
		return nil
	}
	m.bf[relay] = Backfill{Since: since, Top: top, Until: slices.Clone(until)}
	return nil
}

// saveCursor moves the cursor to t, but only when the consumer has taken
// everything from out: an event still in a buffered out would be lost for
// good by a crash if the cursor had already moved past it (with
// MarkCursors, the consumer moves it). It returns the cursor as it now
// stands.
//
// bf, if not nil, is saved with the cursor (an empty one clears the
// progress of a finished backfill).
func (c *Client) saveCursor(ctx context.Context, url string, old, t int64, out chan<- Received, bf *Backfill) int64 {
	if t <= old && bf == nil {
		return old
	}
	if c.cfg.MarkCursors {
		// out is in order, so the mark comes after every event sent before it.
		select {
		case out <- Received{Relay: url, Cursor: max(t, old), Backfill: bf}:
			return max(t, old)
		case <-ctx.Done():
			return old
		}
	}
	if len(out) > 0 {
		return old
	}
	if err := SaveMark(ctx, c.cfg.Cursors, Received{Relay: url, Cursor: max(t, old), Backfill: bf}); err != nil {
		if ctx.Err() == nil {
			c.cfg.Logger.Error("relay: saving cursor", "relay", url, "err", err)
		}
		return old
	}
	return max(t, old)
}
