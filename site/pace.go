package site

import (
	"vesper/match"
	"vesper/nostr"
)

// pace is one player's conduct in one game that every game has, talk or
// not (the ladder of models sums it): counted moves, moves the fold
// ignored, moves the harness chose itself (the fallback tag, section 8.3
// revision 3.1) and the time each counted move took by the players' own
// created_at stamps.
type pace struct {
	Moves   int   `json:"m,omitempty"`
	Ignored int   `json:"i,omitempty"` // the player's move events the fold did not count
	Random  int   `json:"fr,omitempty"`
	Engine  int   `json:"fe,omitempty"`
	Think   int64 `json:"t,omitempty"` // seconds, summed over Timed moves
	Timed   int   `json:"tn,omitempty"`
}

func (p *pace) add(o pace) {
	p.Moves, p.Ignored, p.Random, p.Engine = p.Moves+o.Moves, p.Ignored+o.Ignored, p.Random+o.Random, p.Engine+o.Engine
	p.Think, p.Timed = p.Think+o.Think, p.Timed+o.Timed
}

// cardPace is the two players' pace (first, second), nil for a game
// never accepted. A move's time runs from the previous counted move (the
// accept for the first) to its own created_at, both as the players
// stamped them; a stamp earlier than the one before counts as 0 s.
func cardPace(s *match.State) []pace {
	if !s.Accepted {
		return nil
	}
	out := make([]pace, 2)
	ply := make(map[string]int, len(s.MoveEvents))
	for i, id := range s.MoveEvents {
		ply[id] = i + 1
	}
	ignored := make(map[string]bool, len(s.Ignored))
	for _, ig := range s.Ignored {
		ignored[ig.ID] = true
	}
	for _, ev := range s.Events {
		if ev.Kind != nostr.KindMove {
			continue
		}
		var p *pace
		switch ev.PubKey {
		case s.First:
			p = &out[0]
		case s.Second:
			p = &out[1]
		default:
			continue
		}
		n := ply[ev.ID]
		if n == 0 {
			if ignored[ev.ID] {
				p.Ignored++
			}
			continue
		}
		p.Moves++
		switch f, _ := nostr.Fallback(ev); f {
		case nostr.FallbackRandom:
			p.Random++
		case nostr.FallbackEngine:
			p.Engine++
		}
		if n <= len(s.MoveTimes) {
			from := s.AcceptAt
			if n > 1 {
				from = s.MoveTimes[n-2]
			}
			p.Think += max(s.MoveTimes[n-1]-from, 0)
			p.Timed++
		}
	}
	return out
}
