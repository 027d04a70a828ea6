package site

import (
	"strconv"

	"vesper/match"
	"vesper/match/chessjs"
	"vesper/site/opening"
)

// What a game page shows beside the board, as a Lichess reader expects
// it (issue 26): the opening's name, the time each move took, and what a
// house game is.

// openingView is the named opening of a chess game and the ply of the
// position that names it.
type openingView struct {
	opening.Opening
	Ply    int
	Move   string // the move that reached the named position, "2... Nc6"
	Source string // the table's, named on the page
}

// openingOf names the opening of the chess moves, nil when the table
// knows none of their positions. The positions are replayed by
// match/chessjs, as the board is.
func openingOf(t *opening.Table, moves []string) *openingView {
	if t.Len() == 0 || len(moves) == 0 {
		return nil
	}
	g := chessjs.NewGame()
	epds := make([]string, 0, len(moves))
	for _, mv := range moves {
		if _, err := g.Move(mv); err != nil {
			break
		}
		epds = append(epds, opening.EPD(g.FEN()))
	}
	return openingAt(t, epds)
}

// openingAt names the opening of the positions epds (after each ply).
func openingAt(t *opening.Table, epds []string) *openingView {
	o, ply, ok := t.Match(epds)
	if !ok {
		return nil
	}
	return &openingView{Opening: o, Ply: ply, Source: t.Origin()}
}

// moveTimes is how long each counted move took: the seconds from the
// previous counted move's created_at (the accept's, for the first) to its
// own. A move stamped before the one it follows (created_at is the
// author's word) took 0 s.
func moveTimes(s *match.State) []int64 {
	if !s.Accepted || len(s.MoveEvents) == 0 {
		return nil
	}
	at := make(map[string]int64, len(s.MoveEvents))
	for _, ev := range s.Events {
		at[ev.ID] = int64(ev.CreatedAt)
	}
	prev := s.AcceptAt
	out := make([]int64, 0, len(s.MoveEvents))
	for _, id := range s.MoveEvents {
		t, ok := at[id]
		if !ok {
			return nil
		}
		out = append(out, max(0, t-prev))
		prev = t
	}
	return out
}

// spent writes a move's time as a reader scans it, in its two largest
// units: "45s", "3m 5s", "2h", "1d 4h".
func spent(sec int64) string {
	two := func(a int64, ua string, b int64, ub string) string {
		s := strconv.FormatInt(a, 10) + ua
		if b > 0 {
			s += " " + strconv.FormatInt(b, 10) + ub
		}
		return s
	}
	switch {
	case sec < 60:
		return strconv.FormatInt(sec, 10) + "s"
	case sec < 3600:
		return two(sec/60, "m", sec%60, "s")
	case sec < 86400:
		return two(sec/3600, "h", sec%3600/60, "m")
	}
	return two(sec/86400, "d", sec%86400/3600, "h")
}

// houseView says what a game of this site's house is: it accepted an
// invitation, or an open challenge nobody took within 30 minutes (After:
// how long after it was posted), or it posted the challenge itself; it
// plays with its built-in engine at Strength (Input.HouseStrength).
type houseView struct {
	Invited, Open   bool
	After, Strength string
}

// houseGame is nil for a game the house does not play.
func (b *builder) houseGame(s *match.State) *houseView {
	d := b.in.Daemon
	if d == "" || !s.Accepted || (s.First != d && s.Second != d) {
		return nil
	}
	v := &houseView{Strength: b.in.HouseStrength}
	if s.Second == d {
		v.Invited = s.Invitee == d
		v.Open = !v.Invited
		v.After = spent(max(0, s.AcceptAt-s.CreatedAt))
	}
	return v
}
