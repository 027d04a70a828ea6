package relayd

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fiatjaf/eventstore"
	gn "github.com/nbd-wtf/go-nostr"
)

// Seed stores events without any check and without live delivery, many in
// one go: the way to fill a relay with a season before a benchmark (Inject
// costs a transaction per event, minutes for a million). Events it already
// has are skipped.
func (r *Relay) Seed(ctx context.Context, evs []*gn.Event) error {
	var err error
	switch s := r.store.(type) {
	case *memStore:
		s.seed(evs)
	case *sqliteStore:
		err = s.seed(ctx, evs)
	default:
		for _, ev := range evs {
			if e := r.store.SaveEvent(ctx, ev); e != nil && !errors.Is(e, eventstore.ErrDupEvent) {
				err = e
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("relayd: seed: %w", err)
	}
	return nil
}

func (s *memStore) seed(evs []*gn.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ev := range evs {
		if _, ok := s.byID[ev.ID]; !ok {
			s.byID[ev.ID] = ev
			s.sorted = append(s.sorted, ev)
		}
	}
	slices.SortFunc(s.sorted, cmpEvents)
}

// seedBatch is how many events share one transaction.
const seedBatch = 10_000

func (s *sqliteStore) seed(ctx context.Context, evs []*gn.Event) error {
	for chunk := range slices.Chunk(evs, seedBatch) {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for _, ev := range chunk {
			if err := insertTx(ctx, tx, ev); err != nil && !errors.Is(err, eventstore.ErrDupEvent) {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
