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
