package daemon

import (
	"context"

	"vesper/match"
	"vesper/ratings"
	"vesper/site"
	"vesper/store"
)

// StoredRatingGames folds every stored match, one at a time so that only
// its rating game is kept, and returns the games the ratings are computed
// from, as a site build of the store does (site.RatingGames). `vesper pgn`
// and the game records of a daemon that builds no site both rate with it,
// so that a record carries the ratings `vesper pgn` prints for its match.
func StoredRatingGames(ctx context.Context, st *store.Store) (map[string][]ratings.Game, error) {
	ids, err := st.MatchIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]ratings.Game{}
	for _, id := range ids {
		evs, seen, err := st.MatchEventsSeen(ctx, id)
		if err != nil {
			return nil, err
		}
		s, err := match.Fold(id, evs, seen)
		if err != nil {
			continue // no valid match: not rated
		}
		for kind, games := range site.RatingGames([]*match.State{s}) {
			out[kind] = append(out[kind], games...)
		}
	}
	return out, nil
}
