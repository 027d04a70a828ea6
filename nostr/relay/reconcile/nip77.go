package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// negRetries is how many times a reconciliation that the relay lost
// (sessionLost) is started again.
const negRetries = 3

// sessionLost says a NEG-ERR reason is a relay's word that it holds no
// such session: khatru's bare "CLOSED", or "closed: unknown subscription
// handle" as strfry and vesper's relayd say it.
func sessionLost(reason string) bool {
	return reason == "CLOSED" || strings.HasPrefix(reason, "closed: unknown subscription")
}

// maxMissingIDs bounds the ids Stats.MissingIDs names.
const maxMissingIDs = 20

// nip77 reconciles one relay; false means it needs the fallback.
func (s *syncer) nip77(ctx context.Context, st *Stats) bool {
	start := time.Now()
	defer func() { st.Elapsed += time.Since(start) }()
	ctx, cancel := context.WithTimeout(ctx, s.opts.RelayTimeout)
	defer cancel()
	log := s.opts.Logger.With("relay", st.Relay)
	info := limits.GetVia(ctx, st.Relay, s.opts.DialTimeout, s.guardOf(st.Relay)).Doc
	o := negOptions{maxRounds: s.opts.MaxRounds, first: s.opts.QueryTimeout, silence: s.opts.QueryTimeout, dial: s.opts.DialTimeout}
	o.key = s.opts.Key // NIP-77 sessions authenticate as the REQs do
	o.budget, o.guard = s.budgetFor(st.Relay), s.guardOf(st.Relay)
	// What the relay claimed is dropped when this returns: fetched, or
	// forgotten with a failure.
	defer o.budget.release()
	if !listsNIP77(info) && !s.probe(ctx, st, o) {
		return false
	}
	// The windows a relay cut are halved (split.go): diffs are the
	// windows reconciled whole, and those paged instead.
	sp := &negSplitter{s: s, st: st, o: o, log: log, sessions: negSessionBudget, deadline: time.Now().Add(negSplitTime)}
	if info != nil && info.Limitation != nil {
		sp.maxLimit = info.Limitation.MaxLimit
	}
	// Trusted only on evidence (calibrate.go): a relay whose NIP-77 view
	// leaves out what its REQs read is paged instead.
	c, err := s.calibrate(ctx, st, o, sp.maxLimit)
	st.Check = c.Note
	if err != nil {
		st.NegError, st.Check = err.Error(), "failed"
		log.Warn("relay: NIP-77 check failed, falling back", "err", err)
		return false
	}
	if !c.Trusted {
		st.NegError, st.Untrusted = "NIP-77 not trusted: "+c.Note, true
		log.Warn("relay: NIP-77 view differs from the REQ view; paging instead", "check", c.Note)
		return false
	}
	diffs, ok := s.reconcileAll(ctx, st, sp)
	if !ok {
		return false
	}
	if st.Splits > 0 {
		log.Info("relay: NIP-77 windows split where the relay's set looked cut", "splits", st.Splits, "paged", st.Paged)
	}
	if !slices.ContainsFunc(diffs, func(d negLeaf) bool { return len(d.need) > 0 || d.page }) {
		return true // in step: nothing to fetch
	}
	s.fetchDiffs(ctx, st, diffs, log)
	return true
}

// listsNIP77 reports that a relay's NIP-11 document lists NIP 77.
func listsNIP77(info *nip11.RelayInformationDocument) bool {
	return info != nil && slices.ContainsFunc(info.SupportedNIPs, func(n any) bool {
		f, ok := n.(float64) // JSON numbers
		return ok && f == 77 || n == 77
	})
}

// probe asks a relay that does not list NIP 77 whether it speaks it, with
// a filter that matches nothing, which costs neither side a set, and
// waits ProbeTimeout at most.
func (s *syncer) probe(ctx context.Context, st *Stats, o negOptions) bool {
	o.first = s.opts.ProbeTimeout
	res, err := s.session(ctx, st.Relay, gn.Filter{IDs: []string{wire.NoEvent}}, nil, o)
	st.Rounds += res.rounds
	st.Bytes += res.bytes
	if err != nil {
		st.NegError = err.Error()
		return false
	}
	return true
}

// reconcileAll reconciles every game filter, window by window, and
// returns the leaves to fetch, ordered by filter; false means the relay
// needs the fallback.
func (s *syncer) reconcileAll(ctx context.Context, st *Stats, sp *negSplitter) ([]negLeaf, bool) {
	var diffs []negLeaf
	compared := 0
	for _, f := range syncFilters() {
		windows, items, err := s.windows(ctx, f.Kinds)
		if err != nil {
			st.NegError = err.Error()
			return nil, false
		}
		for _, w := range windows {
			if items == nil {
				if items, err = s.opts.LocalIn(ctx, f.Kinds, w.asked()); err != nil {
					err = fmt.Errorf("relay: sync: local ids: %w", err)
					s.failLocal(err)
					st.NegError = err.Error()
					return nil, false
				}
			}
			leaves, err := sp.reconcile(ctx, f, w, items)
			if errors.Is(err, ErrNegBudget) {
				// The relay's claims so far are fetched; no more windows.
				st.Method, st.Compared = "nip77", compared
				return byFilter(append(diffs, leaves...)), true
			}
			if err != nil {
				return nil, false
			}
			compared += countFrom(items, w.Since) // not the second before (asked)
			diffs = append(diffs, leaves...)
			if s.opts.Windows != nil {
				items = nil // the next window's are read next
			}
		}
	}
	st.Method, st.Compared = "nip77", compared
	return byFilter(diffs), true
}

// fetchDiffs fetches what reconciliation found missing, through the
// strict gate, and counts the ids the relay listed and did not send. A
// failure is recorded in st: the relay is reconciled, and the next sync
// fetches.
func (s *syncer) fetchDiffs(ctx context.Context, st *Stats, diffs []negLeaf, log *slog.Logger) {
	rs, err := s.open(ctx, st)
	if err != nil {
		st.Error = err.Error()
		log.Warn("relay: sync fetch failed", "err", err)
		return
	}
	defer rs.close()
	rs.progress("nip77")
	sentIDs := map[string]bool{}
	var revealed []string
	note := func(sent []*gn.Event) {
		for _, ev := range sent {
			sentIDs[ev.ID] = true
			if ev.Kind == nostr.KindChallenge {
				revealed = append(revealed, ev.ID)
			}
			revealed = append(revealed, matchRefs(ev)...)
		}
	}
	for _, d := range diffs {
		if err := rs.fetchLeaf(ctx, d, note); err != nil {
			st.Error = err.Error()
			log.Warn("relay: sync fetch failed", "err", err)
			return
		}
	}
	// An id listed and not sent is asked for again, alone with its
	// kinds and no window: a window's bounds may have left it out (a
	// store that reads since as exclusive, an event on a split window's
	// first second), and a relay that has it then sends it.
	if again := s.unsent(ctx, st, diffs, sentIDs); len(again) > 0 {
		for _, d := range again {
			if err := rs.fetchLeaf(ctx, d, note); err != nil {
				st.Error = err.Error()
				log.Warn("relay: sync fetch failed", "err", err)
				return
			}
		}
	}
	slices.Sort(revealed)
	st.Revealed = slices.Compact(revealed)
	s.countMissing(ctx, st, diffs, sentIDs, log)
}

// unsent are the ids listed in diffs, not sent and not stored, as leaves
// by kinds without a window.
func (s *syncer) unsent(ctx context.Context, st *Stats, diffs []negLeaf, sentIDs map[string]bool) []negLeaf {
	byKinds := map[string]*negLeaf{}
	var order []string
	for _, d := range diffs {
		var ids []string
		for _, id := range d.need {
			if !sentIDs[id] {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		known, err := s.opts.Known(ctx, ids)
		if err != nil {
			s.failLocal(err)
			return nil
		}
		k := fmt.Sprint(d.base.Kinds)
		l := byKinds[k]
		if l == nil {
			l = &negLeaf{f: gn.Filter{Kinds: d.base.Kinds}}
			byKinds[k] = l
			order = append(order, k)
		}
		for _, id := range ids {
			if !known[id] && !slices.Contains(l.need, id) {
				l.need = append(l.need, id)
			}
		}
	}
	var out []negLeaf
	for _, k := range order {
		if len(byKinds[k].need) > 0 {
			out = append(out, *byKinds[k])
		}
	}
	return out
}

// fetchLeaf fetches one leaf: by id, in chunks, or, for a second the
// relay would not reconcile whole, every event of it as far as its REQs
// reach.
func (rs *relaySession) fetchLeaf(ctx context.Context, d negLeaf, note func([]*gn.Event)) error {
	if d.page {
		sent, err := rs.query(ctx, d.f)
		note(sent)
		rs.progress("fetch")
		return err
	}
	for chunk := range slices.Chunk(d.need, min(chunkSize*5, rs.p.Limit)) {
		// The ids and the filter together: an id the relay listed for
		// this filter must be an event this filter matches, or the
		// gate refuses it as unrequested.
		f := d.f
		f.IDs = slices.Clone(chunk)
		sent, err := rs.query(ctx, f)
		note(sent)
		rs.progress("fetch")
		if err != nil {
			return err
		}
	}
	return nil
}

// countMissing counts the ids claimed and not sent that the store lacks:
// an id claimed and not sent may be absent, refused, or already stored by
// the live subscription meanwhile, and only the first two are a relay's
// lie.
func (s *syncer) countMissing(ctx context.Context, st *Stats, diffs []negLeaf, sentIDs map[string]bool, log *slog.Logger) {
	var unsent []string
	for _, d := range diffs {
		for _, id := range d.need {
			if !sentIDs[id] {
				sentIDs[id] = true // listed by both filters: counted once
				unsent = append(unsent, id)
			}
		}
	}
	for chunk := range slices.Chunk(unsent, 500) {
		known, err := s.opts.Known(ctx, chunk)
		if err != nil {
			s.failLocal(err)
			return
		}
		for _, id := range chunk {
			if !known[id] {
				st.Missing++
				if len(st.MissingIDs) < maxMissingIDs {
					st.MissingIDs = append(st.MissingIDs, id)
				}
			}
		}
	}
	if st.Missing > 0 {
		log.Warn("relay: NIP-77 listed events it did not send", "missing", st.Missing)
	}
}

// windows returns the windows of a reconciliation for kinds: one, open at
// both ends, with the whole local set when Options.Windows is not set
// (items then holds it); else the caller's, whose items LocalIn reads.
func (s *syncer) windows(ctx context.Context, kinds []int) ([]Window, []Item, error) {
	if s.opts.Windows == nil {
		local, err := s.localSets(ctx)
		if err != nil {
			return nil, nil, err
		}
		items := local[fmt.Sprint(kinds)]
		if items == nil {
			items = []Item{}
		}
		return []Window{{}}, items, nil
	}
	ws, err := s.opts.Windows(ctx, kinds)
	if err != nil {
		err = fmt.Errorf("relay: sync: local windows: %w", err)
		s.failLocal(err)
		return nil, nil, err
	}
	if len(ws) == 0 {
		ws = []Window{{}}
	}
	return ws, nil, nil
}

// negWindow reconciles one filter (one window of it) and returns what the
// session learnt: the ids the relay has and the store lacks, and the size
// of the relay's set. An error is recorded in st, except a "too many"
// refusal, which negSplitter answers by splitting the window.
func (s *syncer) negWindow(ctx context.Context, st *Stats, f gn.Filter, items []Item, o negOptions, log *slog.Logger) (negResult, error) {
	var res negResult
	var err error
	for try := 0; ; try++ {
		res, err = s.session(ctx, st.Relay, f, items, o)
		st.Rounds += res.rounds
		st.Bytes += res.bytes
		// khatru v0.19.1 answers NEG-OPEN before it records the session,
		// so our first NEG-MSG, if it comes quickly (a loaded relay that
		// descheduled that goroutine), finds none and gets NEG-ERR
		// "CLOSED" (relayd: "closed: unknown subscription handle"). A new session, with our first answer held back a
		// little longer each time, wins that race.
		var ne *NegError
		if try < negRetries && errors.As(err, &ne) && sessionLost(ne.Reason) && res.rounds == 1 {
			o.pause = 25 * time.Millisecond << (2 * try) // 25, 100, 400 ms
			log.Debug("relay: NIP-77 session lost by the relay, retrying", "pause", o.pause)
			continue
		}
		break
	}
	if err != nil {
		if tooMany(err) {
			return res, err
		}
		if errors.Is(err, ErrNegBudget) {
			log.Warn("relay: NIP-77 budget used; the rest waits for the next sync", "ids", len(res.need), "bytes", st.Bytes)
			st.NegError = err.Error()
			return res, err
		}
		if !errors.Is(err, ErrNegUnsupported) {
			log.Warn("relay: NIP-77 reconciliation failed, falling back", "err", err)
		}
		st.NegError = err.Error()
		return res, err
	}
	return res, nil
}
