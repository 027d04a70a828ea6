package site

import (
	"errors"
	"fmt"
	"slices"

	"vesper/match"
)

// Loader folds one match from wherever the caller keeps its events: its
// state with Events, and the seen_at times of those events. A nil state
// means the events hold no valid match (any more).
type Loader func(id string) (*match.State, map[string]int64, error)

// ErrNoPrevious is Update's answer when outDir holds no build it can start
// from (none yet, or one made by another binary, whose cards it does not
// trust): the caller builds everything with Build.
var ErrNoPrevious = errors.New("site: no previous build to update")

// Update builds the site again from the build outDir points at. The
// matches in changed (those whose events changed since that build began)
// are folded by load: new ones are added, ones that no longer fold are
// dropped. Every other match comes from the previous build's card file,
// not folded, and its files are carried over; load folds it only when
// something else its files show has changed (a clock flag, a name, its
// rating). The listings, player pages, ratings, archive and feeds are
// rendered from the cards. The result is byte for byte what Build makes of
// the same matches.
//
// A match whose analysis changed belongs in changed too. Update finds by
// itself the carried-over matches whose analysis appeared, failed or went
// (regraded), so a restarted caller with no marks misses none of those;
// an analysis replaced by another done one (a new engine version) is
// rendered only when its match is in changed. Either in.Analyses holds
// every analysis, as for Build, or in.AnalysisStatus has the status of
// every one and in.LoadAnalysis reads those Update renders (only the
// analysed matches among the matches it renders again).
//
// in.States and in.SeenAt are not used, nor in.Ratings and in.RatingGames:
// the ratings are computed from the cards, as siteFromStore-style callers
// of Build compute them with RatingGames. Only one Build or Update may run
// for an outDir at a time.
func Update(in Input, changed []string, load Loader, outDir string) (Stats, error) {
	if load == nil {
		return Stats{}, errors.New("site: Update needs a loader")
	}
	b, err := newBuilder(in)
	if err != nil {
		return Stats{}, err
	}
	b.load = load
	o, err := openOutput(outDir)
	if err != nil {
		return Stats{}, err
	}
	prev, err := readCards(o.prevDir)
	if err != nil {
		o.abort()
		return Stats{}, ErrNoPrevious
	}
	changed = append(slices.Clip(changed), regraded(prev, in)...)
	fresh, err := loadAll(changed, load)
	if err != nil {
		o.abort()
		return Stats{}, err
	}
	for _, id := range changed {
		delete(prev, id)
	}
	for _, f := range fresh {
		b.add(f.s, f.seen)
	}
	for _, c := range prev {
		b.cards = append(b.cards, c)
	}
	b.in.Ratings, b.in.RatingGames = nil, cardGames(b.cards)
	b.index()
	return b.run(o, outDir)
}

// regraded finds the carried-over matches whose analysis now shows
// something else than their card says (one arrived, failed or went), so
// that Update folds them again even when the caller did not report them:
// the card decides which files a match has, and a card that missed its
// analysis would leave a page without it, or one linking a file not
// written. With in.AnalysisStatus it compares statuses (none, failed,
// done) and reads no analysis; else it costs a map look-up and a pass
// over the moves per card. Neither marshals anything: an analysis
// replaced by a different one that also fits is not noticed here, and
// must be in changed.
func regraded(prev map[string]*card, in Input) []string {
	var out []string
	for id, c := range prev {
		if in.AnalysisStatus != nil {
			st, ok := in.AnalysisStatus[id]
			if cardStatus(c) != statusClass(st, ok) {
				out = append(out, id)
			}
		} else if cardRecord(c) != gradeRecord(c, in.Analyses[id]) {
			out = append(out, id)
		}
	}
	return out
}

// loadAll folds the changed matches on every core (reading and folding
// are the cost of an update), keeping those that still fold, in id order.
func loadAll(ids []string, load Loader) ([]full, error) {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]full, len(ids))
	errs := make([]error, len(ids))
	// Every match is tried: a load error is kept for its index, not
	// returned, so that parallel does not skip the rest.
	_ = parallel(len(ids), func(j int) error {
		s, seen, err := load(ids[j])
		switch {
		case err != nil:
			errs[j] = fmt.Errorf("site: match %s: %w", ids[j], err)
		case folded(s) && s.Match == ids[j]:
			out[j] = full{s: s, seen: seen}
		}
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(out, func(f full) bool { return f.s == nil }), nil
}
