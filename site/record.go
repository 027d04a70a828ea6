package site

import (
	"strconv"

	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
)

// record is a player's or a group's final games and their figures.
type record struct {
	Games, Wins, Draws, Losses int
	Score, ScoreLow, ScoreHigh string
	// Accuracy and ACPL are means over the analysed chess games
	// (Analysed of them), "" without any; Blunders their sum.
	Accuracy, ACPL string
	Analysed       int
	Blunders       int

	accSum, cpSum float64
}

// add counts one final game for the player of role.
func (r *record) add(c *card, role string) {
	r.Games++
	switch {
	case c.Result == match.Draw:
		r.Draws++
	case c.Result == role:
		r.Wins++
	default:
		r.Losses++
	}
	i := 0
	if role == match.Second {
		i = 1
	}
	if c.Kind == nostr.GameChess && len(c.Grades) == 2 && c.Grades[i].Moves > 0 {
		r.Analysed++
		r.accSum += c.Grades[i].Accuracy
		r.cpSum += c.Grades[i].ACPL
		r.Blunders += c.Grades[i].Blunders
	}
}

func (r *record) points() float64 { return float64(r.Wins) + float64(r.Draws)/2 }

// finish writes the figures in words.
func (r *record) finish() {
	if r.Games > 0 {
		score := r.points() / float64(r.Games)
		lo, hi := ratings.Wilson(score, r.Games)
		r.Score, r.ScoreLow, r.ScoreHigh = pct(score), pct(lo), pct(hi)
	}
	if r.Analysed > 0 {
		r.Accuracy = strconv.FormatFloat(round2(r.accSum/float64(r.Analysed)), 'f', 1, 64) + "%"
		r.ACPL = strconv.Itoa(round(r.cpSum / float64(r.Analysed)))
	}
}

// finalRecords counts every final game of the listed players of kind ("":
// all kinds).
func (b *builder) finalRecords(kind string) map[string]*record {
	recs := map[string]*record{}
	for _, c := range b.cards {
		if !c.Final || !c.Accepted || (kind != "" && c.Kind != kind) {
			continue
		}
		for _, role := range []string{match.First, match.Second} {
			pk := c.First
			if role == match.Second {
				pk = c.Second
			}
			if !b.listed(pk) || !nostr.IsLowerHex(pk, 64) {
				continue
			}
			if recs[pk] == nil {
				recs[pk] = &record{}
			}
			recs[pk].add(c, role)
		}
	}
	return recs
}
