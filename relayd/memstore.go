package relayd

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/fiatjaf/eventstore"
	gn "github.com/nbd-wtf/go-nostr"
)

// memStore keeps events in a slice ordered as queries return them, with an
// index by id. Every method takes the lock: khatru calls them concurrently.
type memStore struct {
	mu       sync.RWMutex
	sorted   []*gn.Event // before() order: newest first
	byID     map[string]*gn.Event
	maxLimit int
	// maxBytes bounds the events' size together (0: no bound); bytes is
	// their size now (eventSize).
	maxBytes, bytes int64
}

// errStoreFull refuses an event the memory store has no room for.
var errStoreFull = errors.New("blocked: this relay's memory store is full")

// eventSize is about what an event costs in memory: its strings and a
// fixed part for the struct, the slices and the index entry.
func eventSize(ev *gn.Event) int64 {
	n := len(ev.ID) + len(ev.PubKey) + len(ev.Sig) + len(ev.Content) + 256
	for _, t := range ev.Tags {
		n += 24
		for _, v := range t {
			n += len(v) + 16
		}
	}
	return int64(n)
}

// full reports whether ev would not fit.
func (s *memStore) full(ev *gn.Event) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.maxBytes > 0 && s.bytes+eventSize(ev) > s.maxBytes
}

var _ eventStore = (*memStore)(nil)

func newMemStore(maxLimit int, maxBytes int64) *memStore {
	return &memStore{byID: make(map[string]*gn.Event), maxLimit: maxLimit, maxBytes: maxBytes}
}

func (s *memStore) Init() error { return nil }
func (s *memStore) Close()      {}

func (s *memStore) Has(_ context.Context, id string) (bool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.byID[id]
	return ok, nil
}

func (s *memStore) Len(context.Context) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.sorted), nil
}

func (s *memStore) QueryEvents(ctx context.Context, f gn.Filter) (chan *gn.Event, error) {
	limit := queryLimit(ctx, f, s.maxLimit)
	if limit == 0 {
		return resultChan(nil), nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*gn.Event
	if f.IDs != nil {
		for _, id := range f.IDs {
			if ev, ok := s.byID[id]; ok && f.Matches(ev) {
				out = append(out, ev)
			}
		}
		slices.SortFunc(out, cmpEvents)
		if len(out) > limit {
			out = out[:limit]
		}
		return resultChan(out), nil
	}
	start := 0
	if f.Until != nil {
		until := *f.Until
		start, _ = slices.BinarySearchFunc(s.sorted, until, func(ev *gn.Event, t gn.Timestamp) int {
			if ev.CreatedAt > t {
				return -1
			}
			return 1
		})
	}
	for _, ev := range s.sorted[start:] {
		if f.Since != nil && ev.CreatedAt < *f.Since {
			break
		}
		if f.Matches(ev) {
			out = append(out, ev)
			if len(out) == limit {
				break
			}
		}
	}
	return resultChan(out), nil
}

func cmpEvents(a, b *gn.Event) int {
	switch {
	case a.ID == b.ID:
		return 0
	case before(a, b):
		return -1
	default:
		return 1
	}
}

func (s *memStore) SaveEvent(_ context.Context, ev *gn.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.insertLocked(ev)
}

func (s *memStore) insertLocked(ev *gn.Event) error {
	if _, ok := s.byID[ev.ID]; ok {
		return eventstore.ErrDupEvent
	}
	size := eventSize(ev)
	if s.maxBytes > 0 && s.bytes+size > s.maxBytes {
		return errStoreFull
	}
	s.bytes += size
	i, _ := slices.BinarySearchFunc(s.sorted, ev, cmpEvents)
	s.sorted = slices.Insert(s.sorted, i, ev)
	s.byID[ev.ID] = ev
	return nil
}

func (s *memStore) DeleteEvent(_ context.Context, ev *gn.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteLocked(ev.ID)
	return nil
}

func (s *memStore) deleteLocked(id string) {
	old, ok := s.byID[id]
	if !ok {
		return
	}
	delete(s.byID, id)
	s.bytes -= eventSize(old)
	if i, found := slices.BinarySearchFunc(s.sorted, old, cmpEvents); found {
		s.sorted = slices.Delete(s.sorted, i, i+1)
	}
}

// ReplaceEvent keeps only the winner among events of one address (NIP-01
// replaceable and addressable kinds), atomically under the lock.
func (s *memStore) ReplaceEvent(_ context.Context, ev *gn.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID[ev.ID]; ok {
		return eventstore.ErrDupEvent
	}
	var older []string
	for _, cur := range s.sorted {
		if !sameAddress(cur, ev) {
			continue
		}
		if !supersedes(ev, cur) {
			return nil // a newer version is kept; this one is dropped
		}
		older = append(older, cur.ID)
	}
	for _, id := range older {
		s.deleteLocked(id)
	}
	return s.insertLocked(ev)
}
