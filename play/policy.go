package play

import (
	"slices"

	"vesper/seat"
)

// Policy says which challenges the runner takes.
type Policy struct {
	// Games it plays (kinds of match.Games); empty: those its mover can.
	Games []string
	// From lists the pubkeys (hex) whose challenges it takes; empty: anyone.
	From []string
	// Invitations: take challenges that invite the key.
	Invitations bool
	// Open: take open challenges of others, once they are OpenAfter old.
	Open      bool
	OpenAfter int64
	// MaxGames is how many games it plays at once.
	MaxGames int
}

// Accepts decides on a challenge (invitation or open) given how many games
// are in progress or reserved, at now. why says why not.
func (p Policy) Accepts(c seat.StreamEvent, active int, now int64) (ok bool, why string) {
	st := c.Status
	switch {
	case c.Type == seat.EventInvitation && !p.Invitations:
		return false, "invitations are not taken"
	case c.Type == seat.EventOpen && !p.Open:
		return false, "open challenges are not taken"
	case c.Type != seat.EventInvitation && c.Type != seat.EventOpen:
		return false, "not a challenge"
	case len(p.Games) > 0 && !slices.Contains(p.Games, c.Game):
		return false, "game " + c.Game + " is not played"
	case len(p.From) > 0 && !slices.Contains(p.From, c.From):
		return false, "challenger not in the accept list"
	case c.Type == seat.EventOpen && st != nil && now-st.CreatedAt < p.OpenAfter:
		return false, "open challenge too young"
	case active >= p.MaxGames:
		return false, "playing the most games at once"
	}
	return true, ""
}
