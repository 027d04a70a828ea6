package analysis

import (
	"context"
	"fmt"

	"vesper/match"
	"vesper/match/chessjs"
)

// chess grades a chess game: every position from the start to the last is
// searched once (the last only when the game did not end there by rule),
// and each move is graded from the evaluations of the positions before and
// after it.
func (a *Analyser) chess(ctx context.Context, st *match.State) (*Game, error) {
	positions, sans, err := replayChess(st.Moves)
	if err != nil {
		return nil, err
	}
	n := len(st.Moves)
	evals, bests, err := a.searchPositions(ctx, st.Moves, positions)
	if err != nil {
		return nil, err
	}
	formula := ChessFormula
	g := &Game{Format: FormatVersion, Match: st.Match, Game: st.Kind, Status: StatusDone, Engine: a.Engine(), Formula: &formula}
	g.Moves = make([]Move, n)
	wins := make([]float64, n+1)
	acc := make([]float64, n)
	for i := range evals {
		wins[i] = WinPercent(viewOf(evals[i], true).capped())
	}
	for i := 0; i < n; i++ {
		white := i%2 == 0
		played := st.Moves[i]
		isBest := bests[i].UCI() == played
		loss, wb, wa, ac, tag := grade(viewOf(evals[i], white), viewOf(evals[i+1], white), isBest)
		before, after := evals[i], evals[i+1]
		g.Moves[i] = Move{Ply: i + 1, Move: sans[i], Side: chessSide(white), Best: bests[i].SAN,
			Before: &before, After: &after, Loss: loss,
			WinBefore: round1(wb), WinAfter: round1(wa), Accuracy: round1(ac), Tag: tag}
		acc[i] = ac
	}
	first, second := gameAccuracy(wins, acc)
	g.Players = players(st, g.Moves, chessSide(true), chessSide(false))
	if n > 0 {
		g.Players[0].Accuracy, g.Players[1].Accuracy = round1(first), round1(second)
	}
	return g, nil
}

// searchPositions has the engine search every position of the game (the
// last only when the game did not end there by rule): evals are the
// evaluations from White's view, bests the engine's moves.
func (a *Analyser) searchPositions(ctx context.Context, moves []string, positions []*chessjs.Game) ([]Eval, []chessjs.Move, error) {
	n := len(moves)
	evals := make([]Eval, n+1)
	bests := make([]chessjs.Move, n+1)
	if n == 0 {
		return evals, bests, nil
	}
	eng, err := a.engine(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := eng.newGame(ctx); err != nil {
		return nil, nil, err
	}
	for i := 0; i <= n; i++ {
		pos := positions[i]
		if out := pos.Outcome(); out.Over {
			if i < n {
				return nil, nil, fmt.Errorf("analysis: move %d (%s) follows the end of the game (%s)", i+1, moves[i], out.Reason)
			}
			evals[i] = terminal(out)
			break
		}
		res, err := eng.search(ctx, moves[:i], a.opts.Depth, a.opts.Nodes)
		if err != nil {
			return nil, nil, err
		}
		best, ok := legalUCI(pos, res.best)
		if !ok {
			return nil, nil, eng.fail(fmt.Errorf("answered bestmove %q, not a legal move in %s", res.best, pos.FEN()))
		}
		bests[i] = best
		evals[i] = whiteView(res, pos.Turn())
	}
	return evals, bests, nil
}

func chessSide(white bool) string {
	if white {
		return "white"
	}
	return "black"
}

// replayChess plays the canonical UCI moves of a folded state through
// match/chessjs, the protocol's rules, and returns every position, the
// start first, and each move's SAN.
func replayChess(moves []string) ([]*chessjs.Game, []string, error) {
	g := chessjs.NewGame()
	positions := []*chessjs.Game{g.Clone()}
	sans := make([]string, len(moves))
	for i, mv := range moves {
		m, ok := legalUCI(g, mv)
		if !ok {
			return nil, nil, fmt.Errorf("analysis: move %d %q is not legal in %s", i+1, mv, g.FEN())
		}
		// The SAN chess.js printed is matched exactly by its strict parse.
		if _, err := g.Move(m.SAN); err != nil {
			return nil, nil, fmt.Errorf("analysis: move %d %q: %w", i+1, mv, err)
		}
		sans[i] = m.SAN
		positions = append(positions, g.Clone())
	}
	return positions, sans, nil
}

// legalUCI finds the legal move whose UCI form is s. The engine's UCI
// spells castling king-to-destination (e1g1), as chess.js moves do.
func legalUCI(g *chessjs.Game, s string) (chessjs.Move, bool) {
	for _, m := range g.LegalMoves() {
		if m.UCI() == s {
			return m, true
		}
	}
	return chessjs.Move{}, false
}

// whiteView turns a search score, from the side to move, into White's.
func whiteView(r searchResult, turn chessjs.Color) Eval {
	cp, mate := r.cp, r.mate
	if turn == chessjs.Black {
		cp, mate = -cp, -mate
	}
	if mate > 0 {
		cp = MateCP
	} else if mate < 0 {
		cp = -MateCP
	}
	return Eval{CP: cp, Mate: mate}
}

// terminal is the evaluation of a position where the game ended by rule.
func terminal(out chessjs.Outcome) Eval {
	e := Eval{End: out.Reason}
	switch out.Winner {
	case chessjs.White:
		e.CP = MateCP
	case chessjs.Black:
		e.CP = -MateCP
	}
	return e
}

// players sums the graded moves per side, first player first.
func players(st *match.State, moves []Move, firstSide, secondSide string) []Player {
	ps := []Player{
		{Pubkey: st.First, Side: firstSide, Counts: map[Tag]int{}},
		{Pubkey: st.Second, Side: secondSide, Counts: map[Tag]int{}},
	}
	for _, p := range ps {
		for _, t := range Tags {
			p.Counts[t] = 0
		}
	}
	var loss [2]int
	for i, m := range moves {
		p := &ps[i%2]
		p.Moves++
		p.Counts[m.Tag]++
		loss[i%2] += m.Loss
	}
	for k := range ps {
		if ps[k].Moves > 0 {
			ps[k].ACPL = round1(float64(loss[k]) / float64(ps[k].Moves))
		}
	}
	return ps
}
