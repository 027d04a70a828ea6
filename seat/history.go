package seat

import (
	"context"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay"
)

// keyFilters are the key's own challenges and accepts, and those naming
// it, since since.
func (st *streamer) keyFilters(since int64) []gn.Filter {
	ts := gn.Timestamp(since)
	me := st.me
	return []gn.Filter{
		{Kinds: []int{nostr.KindChallenge}, Authors: []string{me}, Since: &ts},
		{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{"p": {me}}, Since: &ts},
		{Kinds: []int{nostr.KindAccept}, Authors: []string{me}, Since: &ts},
		{Kinds: []int{nostr.KindAccept}, Tags: gn.TagMap{"p": {me}}, Since: &ts},
	}
}

// matchFilters ask for the challenges and the events of matches.
func matchFilters(ids []string) []gn.Filter {
	return []gn.Filter{{IDs: ids}, {Kinds: matchKinds(), Tags: gn.TagMap{nostr.MatchTag: ids}}}
}

func (st *streamer) filters(since int64) []gn.Filter {
	ts := gn.Timestamp(since)
	fs := st.keyFilters(since)
	if st.opts.Open {
		fs = append(fs, gn.Filter{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{"t": {nostr.GamesTopic}}, Since: &ts})
	}
	st.mu.Lock()
	ids := make([]string, 0, len(st.follow))
	for id := range st.follow {
		ids = append(ids, id)
	}
	st.mu.Unlock()
	sort.Strings(ids)
	if len(ids) > 0 {
		fs = append(fs, matchFilters(ids)...)
	}
	return fs
}

// historyGroup is how many matches one paged history read asks about: a
// few, so that each filter's answer is a page or two (a key's busy week on
// one filter would be thousands of events, read newest first).
const historyGroup = 8

// historyBatch is how many history filters one connection reads within
// one Seat.Timeout: 8 groups of matches, some 4,000 events at most.
const historyBatch = 16

// history reads by paged REQs (relay.FetchWith: each filter is asked
// again below its oldest page until a page proves the end) what the live
// subscription of this generation asks for and was not read so far: the
// key's filters once, and each followed match once, a few matches a
// filter. A live subscription delivers only the newest events each relay
// lets through (500 on khatru's stock store), so a key with a busy week
// would see its early games folded from their last moves: finished games
// read as live (issue 34). The folds wait for these reads (reading).
func (st *streamer) history(ctx context.Context, since int64) {
	st.mu.Lock()
	var fs []gn.Filter
	keyToo := !st.keyRead
	if keyToo {
		st.keyRead = true
		fs = append(fs, st.keyFilters(since)...)
	}
	var ids []string
	for id := range st.follow {
		if !st.read[id] {
			st.read[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for group := range slices.Chunk(ids, historyGroup) {
		fs = append(fs, matchFilters(group)...)
	}
	if len(fs) == 0 {
		st.mu.Unlock()
		return
	}
	st.reading++
	st.mu.Unlock()
	go func() {
		defer func() {
			st.mu.Lock()
			st.reading--
			st.mu.Unlock()
			st.signal()
		}()
		// Each relay alone, so one that fails costs only its own events
		// (the live subscription still brings its newest ones), and a
		// batch of filters at a time, each within the seat's timeout
		// (doubled at each of historyTries tries: a slow relay on a busy
		// host is not a relay without the events).
		var wg sync.WaitGroup
		var whole atomic.Int32
		for _, url := range st.s.Relays {
			wg.Go(func() {
				ok := true
				for batch := range slices.Chunk(fs, historyBatch) {
					ok = st.readBatch(ctx, url, batch) && ok
				}
				if ok {
					whole.Add(1)
				}
			})
		}
		wg.Wait()
		st.mu.Lock()
		defer st.mu.Unlock()
		if whole.Load() > 0 {
			// Read whole from at least one relay: fold them now, even
			// those whose events all came before (nothing new arrived
			// to mark them).
			st.dirty = append(st.dirty, ids...)
			return
		}
		// Not read whole from any relay: these matches are not folded
		// (evaluate holds them) until a later read succeeds, since a
		// fold of their newest events alone can show a finished game
		// as a clock run out. The retry reopens the subscription,
		// which reads what is not read.
		for _, id := range ids {
			delete(st.read, id)
		}
		if keyToo {
			st.keyRead = false
		}
		time.AfterFunc(st.s.timeout(), func() {
			if ctx.Err() != nil {
				return
			}
			st.mu.Lock()
			st.resub = true
			st.mu.Unlock()
			st.signal()
		})
	}()
}

// historyTries is how many times a history batch is asked of a relay
// before that relay counts as not having answered it.
const historyTries = 3

// readBatch reads one batch of history filters from one relay, trying
// again with twice the time after a failure; it reports whether a try
// read the batch whole.
func (st *streamer) readBatch(ctx context.Context, url string, batch []gn.Filter) bool {
	timeout := st.s.timeout()
	for range historyTries {
		got, err := relay.FetchWith(ctx, []string{url}, batch, relay.FetchOptions{Timeout: timeout, Key: st.s.Key})
		for _, r := range got {
			st.receive(r)
		}
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		timeout *= 2
	}
	return false
}

// subscribe starts one subscription generation; cancel ends it.
func (st *streamer) subscribe(ctx context.Context) context.CancelFunc {
	wctx, cancel := context.WithCancel(ctx)
	st.mu.Lock()
	st.live, st.resub = false, false
	st.reported = map[string]bool{}
	st.mu.Unlock()
	since := st.s.now().Unix() - lookBack
	filters := st.filters(since)
	st.history(ctx, since)
	go relay.Watch(wctx, st.s.Relays, filters, relay.WatchOptions{
		Timeout: st.s.timeout(),
		Key:     st.s.Key,
		OnStatus: func(url string, up bool, err error) {
			if wctx.Err() != nil {
				return
			}
			st.mu.Lock()
			st.reported[url] = true
			if up {
				st.live = true
			}
			st.mu.Unlock()
			st.signal()
		},
	}, func(r relay.Received) { st.receive(r) })
	return cancel
}

// receive files an event under its matches; a match the subscription does
// not follow yet makes it reopen with that match.
func (st *streamer) receive(r relay.Received) {
	ev := r.Event
	at := st.s.now().Unix()
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.events[ev.ID]; ok {
		return
	}
	st.events[ev.ID], st.seen[ev.ID] = ev, at
	ids := nostr.MatchRefs(ev)
	// Another's open challenge is listed, not followed: following every
	// one on a public relay would reopen the subscription at each. Its
	// accept by the key comes on the key's own filter.
	others := false
	if ev.Kind == nostr.KindChallenge {
		ids = []string{ev.ID}
		others = ev.PubKey != st.me && !nostr.NamesPubkey(ev, st.me)
	}
	for _, id := range ids {
		st.byMatch[id] = append(st.byMatch[id], ev.ID)
		st.dirty = append(st.dirty, id)
		if !st.follow[id] && !others {
			st.follow[id] = true
			st.resub = true
		}
	}
	st.signal()
}
