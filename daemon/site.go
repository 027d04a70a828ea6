package daemon

import (
	"context"
	"slices"
	"sync"
	"time"

	"vesper/analysis"
	"vesper/internal/parallel"
	"vesper/match"
	"vesper/ratings"
	"vesper/site"
	"vesper/site/opening"
	"vesper/store"
)

// BuildSite folds every stored match and builds the site, one match at a
// time (site.BuildEach): memory follows the matches' cards, not their
// events. The house
// (daemon "") is the key of the store's outbox, and its profile the one it
// published there when no newer one came back from a relay.
func BuildSite(ctx context.Context, st *store.Store, out, daemon string, listAll bool, now int64) (site.Stats, error) {
	return BuildSiteWith(ctx, st, out, daemon, SiteOptions{ListAll: listAll}, now)
}

// SiteOptions are what an operator chooses of a build from the store.
type SiteOptions struct {
	ListAll bool // list every account, not only bots
	// Openings names chess openings (site.Input.Openings); nil is the
	// table shipped with vesper.
	Openings *opening.Table
	// Relays are the relays the daemon reads and SourceURL where vesper's
	// source is, stated on the how-to (site.Input.ReadRelays, SourceURL).
	Relays    []string
	SourceURL string
}

// BuildSiteWith is BuildSite with the operator's options.
func BuildSiteWith(ctx context.Context, st *store.Store, out, daemon string, o SiteOptions, now int64) (site.Stats, error) {
	sh := siteShow{listAll: o.ListAll, dormantAfter: DefaultLimits().DormantAfter, openings: o.Openings,
		relays: o.Relays, source: o.SourceURL}
	return buildFull(ctx, st, out, daemon, sh, now)
}

// siteShow is what a daemon's builds show besides the store: listAll
// lists every account; analysing says that the daemon grades finished
// games, so that one without its analysis yet reads "being analysed";
// dormantAfter is its grace (Limits.DormantAfter), after which the site
// shows a game in progress as abandoned; strength is how its house plays
// (houseStrength), "" when it is not known; house is the running house's
// verdicts on the challenges it could accept (nil: none known); openings
// is the operator's opening table (nil: the shipped one); relays are the
// relays the daemon reads and source where vesper's source is, for the
// how-to.
type siteShow struct {
	listAll, analysing bool
	dormantAfter       int64
	strength           string
	house              map[string]site.HouseVerdict
	openings           *opening.Table
	relays             []string
	source             string
}

func (sh siteShow) apply(in *site.Input) {
	in.Analysing, in.DormantAfter, in.HouseStrength, in.HouseOpen = sh.analysing, sh.dormantAfter, sh.strength, sh.house
	in.Openings, in.ReadRelays, in.SourceURL = sh.openings, sh.relays, sh.source
}

// houseStrength is the house engine's strength as its game pages say it:
// the search time per move the daemon gives it (Config.Think).
func houseStrength(think time.Duration) string {
	return think.String() + " of search per move"
}

// buildFull is BuildSite with what sh says.
func buildFull(ctx context.Context, st *store.Store, out, daemon string, sh siteShow, now int64) (site.Stats, error) {
	in, err := siteInput(ctx, st, daemon, sh.listAll, now)
	if err != nil {
		return site.Stats{}, err
	}
	sh.apply(&in)
	ids, err := st.MatchIDs(ctx)
	if err != nil {
		return site.Stats{}, err
	}
	if in.RatingGames, err = ratingForecast(ctx, st); err != nil {
		return site.Stats{}, err
	}
	return site.BuildEach(in, ids, func(id string) (*match.State, map[string]int64, error) {
		return foldOne(ctx, st, id)
	}, out)
}

// ratingForecast is the rated games as the stored summaries say them, for
// site.BuildEach, which checks them against its folds. The matches whose
// summary may be out of date (dirty, or written by another fold version:
// all of them in a store ingested without a daemon) are folded here
// instead, on one goroutine per CPU, so that the forecast is right and the
// build renders every page once: a wrong forecast makes BuildEach fold and
// render everything twice, and folding alone costs a fraction of that.
func ratingForecast(ctx context.Context, st *store.Store) (map[string][]ratings.Game, error) {
	results, err := st.FinalResults(ctx)
	if err != nil {
		return nil, err
	}
	unsettled, err := st.UnsettledMatches(ctx, match.FoldVersion)
	if err != nil {
		return nil, err
	}
	games := map[string][]ratings.Game{}
	for _, r := range results {
		if _, ok := slices.BinarySearch(unsettled, r.Match); ok {
			continue
		}
		games[r.Game] = append(games[r.Game], ratings.Game{
			Match: r.Match, Kind: r.Game, First: r.First, Second: r.Second, Result: r.Result, At: r.At,
		})
	}
	var mu sync.Mutex
	err = parallel.Do(len(unsettled), func(i int) error {
		s, _, err := foldOne(ctx, st, unsettled[i])
		if err != nil || s == nil {
			return err
		}
		rated := site.RatingGames([]*match.State{s})
		mu.Lock()
		defer mu.Unlock()
		for kind, gs := range rated {
			games[kind] = append(games[kind], gs...)
		}
		return nil
	})
	return games, err
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
	in := site.Input{Profiles: map[string]site.Profile{}, Daemon: daemon, Now: now, ListAll: listAll,
		// The site shows as abandoned the games in progress a daemon with
		// the default grace leaves dormant (dormant.go); a daemon's own
		// builds give its grace.
		IdleSince: abandonedSince, DormantAfter: DefaultLimits().DormantAfter}
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
