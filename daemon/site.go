package daemon

import (
	"context"
	"sync"
	"sync/atomic"
	"vesper/analysis"
	"vesper/match"
	"vesper/site"
	"vesper/store"
)

// BuildSite folds every stored match and builds the site. The house
// (daemon "") is the key of the store's outbox, and its profile the one it
// published there when no newer one came back from a relay.
func BuildSite(ctx context.Context, st *store.Store, out, daemon string, listAll bool, now int64) (site.Stats, error) {
	return buildFull(ctx, st, out, daemon, listAll, false, now)
}

// buildFull is BuildSite; analysing says that the caller grades finished
// games, so that one without its analysis yet reads "being analysed".
func buildFull(ctx context.Context, st *store.Store, out, daemon string, listAll, analysing bool, now int64) (site.Stats, error) {
	in, err := siteInput(ctx, st, daemon, listAll, now)
	if err != nil {
		return site.Stats{}, err
	}
	in.Analysing = analysing
	ids, err := st.MatchIDs(ctx)
	if err != nil {
		return site.Stats{}, err
	}
	in.States, in.SeenAt, err = foldStored(ctx, st, ids)
	if err != nil {
		return site.Stats{}, err
	}
	in.RatingGames = site.RatingGames(in.States)
	return site.Build(in, out)
}

// SiteInput is what every build shows besides the matches (the profiles,
// the house and its profile, the analyses' statuses, the relays of each
// challenge) for callers that render from the store without a build:
// `vesper pgn`. daemon "" is the house of the store's outbox.
func SiteInput(ctx context.Context, st *store.Store, daemon string, now int64) (site.Input, error) {
	return siteInput(ctx, st, daemon, false, now)
}

// siteInput is what every build shows besides the matches: the profiles,
// the house and now.
func siteInput(ctx context.Context, st *store.Store, daemon string, listAll bool, now int64) (site.Input, error) {
	house, _, err := st.House(ctx)
	if err != nil {
		return site.Input{}, err
	}
	if daemon == "" {
		daemon = house.Pubkey
	}
	in := site.Input{Profiles: map[string]site.Profile{}, Daemon: daemon, Now: now, ListAll: listAll}
	// The analyses by status only: a build loads the few whose pages it
	// renders (LoadAnalysis), not every analysed game.
	statuses, err := st.AnalysisStatuses(ctx)
	if err != nil {
		return site.Input{}, err
	}
	in.AnalysisStatus = make(map[string]analysis.Status, len(statuses))
	for m, s := range statuses {
		in.AnalysisStatus[m] = analysis.Status(s)
	}
	in.LoadAnalysis = func(id string) (*analysis.Game, error) {
		a, ok, err := st.Analysis(ctx, id)
		if err != nil || !ok {
			return nil, err
		}
		return analysis.Parse(a.JSON)
	}
	// The relays that hold each challenge: the hints of its nevent.
	if in.Relays, err = st.ChallengeRelays(ctx, 3); err != nil {
		return site.Input{}, err
	}
	profiles, err := st.Profiles(ctx)
	if err != nil {
		return site.Input{}, err
	}
	houseAt := int64(-1)
	for _, p := range profiles {
		in.Profiles[p.PubKey] = site.ParseProfile(p.Content)
		if p.PubKey == daemon {
			houseAt = int64(p.CreatedAt)
		}
	}
	if hp := house.Profile; hp != nil && hp.PubKey == daemon && int64(hp.CreatedAt) > houseAt {
		in.Profiles[daemon] = site.ParseProfile(hp.Content)
	}
	return in, nil
}

// foldStored reads and folds the matches ids on every core (reading the
// events and folding them are most of a full build), in the order of ids;
// matches that hold no valid match are left out.
func foldStored(ctx context.Context, st *store.Store, ids []string) ([]*match.State, map[string]int64, error) {
	states := make([]*match.State, len(ids))
	seens := make([]map[string]int64, len(ids))
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers())
	for range workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(ids) {
					return
				}
				s, seen, err := foldOne(ctx, st, ids[i])
				if err != nil {
					errs <- err
					next.Store(int64(len(ids))) // the others stop at their next match
					return
				}
				states[i], seens[i] = s, seen
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return nil, nil, err
	default:
	}
	total := 0
	for _, seen := range seens {
		total += len(seen)
	}
	all := make(map[string]int64, total)
	out := states[:0]
	for i, s := range states {
		for id, t := range seens[i] {
			all[id] = t
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out, all, nil
}

// foldOne folds one stored match: its state with every event, and their
// seen_at times. A nil state means the events hold no valid match.
func foldOne(ctx context.Context, st *store.Store, id string) (*match.State, map[string]int64, error) {
	evs, seen, err := st.MatchEventsSeen(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	s, err := match.Fold(id, evs, seen)
	if err != nil {
		return nil, seen, nil // no valid match: nothing to show
	}
	return s, seen, nil
}
