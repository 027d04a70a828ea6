package site

import (
	"vesper/match"
	"vesper/ratings"
)

// RatingGames turns final results into rating input, by game kind. A game
// is dated by the created_at of the event that made its result final
// (ratings' canonical order). Results that are not final are not rated.
func RatingGames(states []*match.State) map[string][]ratings.Game {
	out := map[string][]ratings.Game{}
	for _, s := range states {
		if s == nil || !s.Final || !s.Accepted {
			continue
		}
		at := s.EndedAt
		for _, ev := range s.Events {
			if ev.ID == s.FinalEvent {
				at = int64(ev.CreatedAt)
				break
			}
		}
		out[s.Kind] = append(out[s.Kind], ratings.Game{
			Match: s.Match, Kind: s.Kind, First: s.First, Second: s.Second, Result: s.Result, At: at,
		})
	}
	return out
}

// cardGames is RatingGames over cards, which carry the date already.
func cardGames(cards []*card) map[string][]ratings.Game {
	out := map[string][]ratings.Game{}
	for _, c := range cards {
		if !c.Final || !c.Accepted {
			continue
		}
		out[c.Kind] = append(out[c.Kind], ratings.Game{
			Match: c.ID, Kind: c.Kind, First: c.First, Second: c.Second, Result: c.Result, At: c.RatedAt,
		})
	}
	return out
}
