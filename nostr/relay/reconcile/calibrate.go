package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// A relay's NIP-77 answers are taken as its whole set only on evidence.
// Splitting (split.go) can uncut a set only when the cut shows: a set of
// exactly max_limit ids, or of a size operators pick. Relays met in the
// field cut otherwise (issue 34):
//
//   - khatru on eventstore's lmdb with a MaxLimit answers a session with
//     somewhat fewer ids than its cap (474 for 500, 91 for 100, 18 for 20:
//     its merge of several index scans stops early), a size no rule can
//     tell from a whole set;
//   - strfry with NIP-42 restricted reads never tells its negentropy
//     threads that a connection authenticated, so after AUTH every set is
//     empty;
//   - a relay may simply leave ids out.
//
// So before reconciling, every Sync calibrates each relay: it reads the
// newest calibrationEvents events of each game filter by paged REQ (the
// pager proves where they end) and reconciles the same window with an
// empty local set, which lists the relay's whole NIP-77 view of it. The
// view must hold every event the REQs read. A view that holds fewer is
// trusted only when the cut is one the splitter sees: exactly max_limit
// or a cap-like size, and only older events left out (a cap keeps the
// newest). Otherwise the relay is synced by paged REQ (the fallback) for
// this Sync, and calibrated again at the next one: it is trusted again
// once it proves it.
//
// The window holds twice the page size, and at least 1,000 events, so a
// cap at or below max_limit (or at khatru's stock 500) is inside it. A
// relay that cuts only sets much larger than that, at an unrecognisable
// size, is not caught by this check; the REQ paging of the fallback would
// be, but costs in proportion to history.

// calibrationEvents is the least number of newest events a calibration
// reads by REQ: above the stock caps (500) that relays apply to NIP-77
// sessions as to REQs.
const calibrationEvents = 1000

// calibration is one relay's verdict: Trusted, or why not.
type calibration struct {
	Trusted bool
	// Note says what was seen, per game filter with events: "n/n" (the
	// REQ view all in the NIP-77 view), "cut at n" (a recognisable cap),
	// or why the view is not trusted.
	Note            string
	Messages, Bytes int64 // REQ pages and NIP-77 messages, and the NIP-77 bytes
}

// calibrate checks url's NIP-77 view against its REQ view, filter by
// filter (see the comment at the top of this file). An error is a failure
// to read either view: the relay then gets the fallback, as when NIP-77
// fails.
func (s *syncer) calibrate(ctx context.Context, st *Stats, o negOptions, maxLimit int) (calibration, error) {
	rs, err := s.open(ctx, st)
	if err != nil {
		return calibration{}, err
	}
	defer func() {
		// The events the gate refused here are counted when the sync
		// reads them again, not twice.
		rs.refused.Store(0)
		rs.close()
	}()
	want := max(2*rs.p.Limit, calibrationEvents)
	c := calibration{Trusted: true}
	var notes []string
	for _, f := range syncFilters() {
		var got []Item
		pages := 0
		_, err := rs.p.RunFrom(ctx, f, want, func(ev *gn.Event) {
			got = append(got, Item{ID: ev.ID, CreatedAt: int64(ev.CreatedAt)})
		}, func(gn.Timestamp) { pages++ })
		c.Messages += int64(pages + 1)
		if err != nil {
			return c, fmt.Errorf("relay: NIP-77 check: REQ view: %w", err)
		}
		if len(got) == 0 {
			continue
		}
		// Whole when the walk ended before want; else the window starts
		// after the oldest second read, which may hold more.
		g := f
		var view []Item
		if len(got) < want {
			view = got
		} else {
			oldest := slices.MinFunc(got, func(a, b Item) int { return int(a.CreatedAt - b.CreatedAt) }).CreatedAt
			for _, it := range got {
				if it.CreatedAt > oldest {
					view = append(view, it)
				}
			}
			// Since the oldest second: slicestore reads since as
			// exclusive, NIP-01 as inclusive; either lists all of view.
			ts := gn.Timestamp(oldest)
			g.Since = &ts
		}
		if len(view) == 0 {
			continue
		}
		res, err := s.session(ctx, st.Relay, g, []Item{}, o)
		c.Messages += int64(res.rounds)
		c.Bytes += res.bytes
		st.Rounds += res.rounds
		st.Bytes += res.bytes
		if err != nil && !tooMany(err) {
			return c, fmt.Errorf("relay: NIP-77 check: %w", err)
		}
		if err != nil {
			continue // "too many": the splitter takes it from there
		}
		ok, note := judge(view, res.need, maxLimit)
		notes = append(notes, note)
		if !ok {
			c.Trusted = false
			c.Note = note
			return c, nil
		}
	}
	c.Note = strings.Join(notes, ", ")
	return c, nil
}

// judge compares a relay's REQ view of a window (view) with its NIP-77
// view of it (listed): trusted when listed holds all of view, or when it
// is cut where the splitter sees it (exactly maxLimit or a cap-like size,
// only the oldest left out).
func judge(view []Item, listed []string, maxLimit int) (bool, string) {
	in := make(map[string]bool, len(listed))
	for _, id := range listed {
		in[id] = true
	}
	var lost []Item
	newestLost, oldestKept := int64(-1), int64(-1)
	for _, it := range view {
		if !in[it.ID] {
			lost = append(lost, it)
			newestLost = max(newestLost, it.CreatedAt)
		} else if oldestKept < 0 || it.CreatedAt < oldestKept {
			oldestKept = it.CreatedAt
		}
	}
	switch {
	case len(lost) == 0:
		return true, fmt.Sprintf("%d/%d", len(view), len(view))
	case len(listed) == 0:
		return false, fmt.Sprintf("NIP-77 lists none of the %d events REQs read", len(view))
	case (len(listed) == maxLimit || capLike(len(listed))) && newestLost <= oldestKept:
		return true, fmt.Sprintf("cut at %d", len(listed))
	}
	return false, fmt.Sprintf("NIP-77 lists %d of the %d events REQs read", len(view)-len(lost), len(view))
}

// CheckResult is Check's answer: whether the relay offers NIP-77 and
// whether its NIP-77 view passed the check, with what was seen.
type CheckResult struct {
	Offered bool   `json:"offered"`
	Trusted bool   `json:"trusted"`
	Note    string `json:"note,omitempty"`
}

// Check runs the NIP-77 check of one relay on its own, as every Sync
// does before reconciling (`vesper relays --nip77-check`): it reads the
// relay's newest game events (up to twice its page, at least 1,000) by
// REQ and its NIP-77 view of the same window. key answers NIP-42 AUTH.
func Check(ctx context.Context, url string, key nostr.SecretKey, timeout time.Duration) (CheckResult, error) {
	none := func(context.Context, []int) ([]Item, error) { return nil, nil }
	opts := Options{Relays: []string{url}, Key: key, QueryTimeout: timeout, DialTimeout: timeout,
		Local: none, Open: func(context.Context) ([]string, error) { return nil, nil },
		Known: func(context.Context, []string) (map[string]bool, error) { return map[string]bool{}, nil }}
	s := newSyncer(opts.withDefaults(), nil, 1)
	st := &s.stats[0]
	st.Relay = wire.NormalizeURLs(opts.Relays)[0]
	info := limits.GetVia(ctx, st.Relay, s.opts.DialTimeout, nil).Doc
	o := negOptions{maxRounds: s.opts.MaxRounds, first: s.opts.QueryTimeout, silence: s.opts.QueryTimeout, dial: s.opts.DialTimeout, key: key}
	o.budget = s.budgetFor(st.Relay)
	defer o.budget.release()
	if !listsNIP77(info) && !s.probe(ctx, st, o) {
		return CheckResult{Note: st.NegError}, nil
	}
	maxLimit := 0
	if info != nil && info.Limitation != nil {
		maxLimit = info.Limitation.MaxLimit
	}
	c, err := s.calibrate(ctx, st, o, maxLimit)
	if err != nil {
		return CheckResult{Offered: true}, err
	}
	return CheckResult{Offered: true, Trusted: c.Trusted, Note: c.Note}, nil
}
