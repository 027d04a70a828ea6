package analysis

import (
	"context"
	"fmt"

	"vesper/engine/connect4"
	"vesper/match"
)

// connect4Engine names the solver that grades Connect Four; Version
// changes when a grade would. Nodes is the budget per position.
func connect4Engine(budget int64) Engine {
	return Engine{Name: "vesper connect4 solver", Version: "1", Nodes: budget}
}

// Connect Four grades come from an exact solver (PROTOCOL.md section 5.1:
// 7x6, four in a line wins, Red first). Each position before a move is
// solved for the mover, win, draw or loss, within a node budget, and so is
// the position after it (the mover's value is the opponent's negated; a
// move that makes four wins, the 42nd disc draws). With both known:
//
//   - the move keeps the value: best (perfect play);
//   - it turns a win or a draw into a loss: a blunder;
//   - it turns a win into a draw: a mistake.
//
// A move after which the position is a proven win for the mover is best
// (nothing is better), and so is any move in a proven loss. Otherwise a
// grade that needs an unproven value is unknown, never a guess.
//
// One rule needs no budget: a move that allows the opponent four at once,
// which the opponent then takes, when another move would not have, is a
// blunder, even in a position proven lost (the loss came sooner than it
// had to), so that its grade never depends on the budget.
//
// Best names, for a move that is not best, a column that keeps the value
// (or for an allowed four, one that does not allow it).
func gradeConnect4(ctx context.Context, st *match.State, budget int64) (*Game, error) {
	spec, err := match.LookupGame(st.Kind)
	if err != nil {
		return nil, err
	}
	moves, err := gradeConnect4Moves(ctx, st.Moves, budget, spec.Sides)
	if err != nil {
		return nil, err
	}
	return &Game{Format: FormatVersion, Match: st.Match, Game: st.Kind, Status: StatusDone,
		Engine: connect4Engine(budget), Moves: moves, Players: players(st, moves, spec.Sides[0], spec.Sides[1])}, nil
}

// gradeConnect4 is the grader's entry: one game at a time, as chess, for
// the solver takes seconds of CPU.
func (a *Analyser) gradeConnect4(ctx context.Context, st *match.State) (*Game, error) {
	select {
	case a.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-a.slot }()
	return gradeConnect4(ctx, st, a.opts.SolverNodes)
}

// gradeConnect4Moves grades moves (columns) played from the empty board;
// sides name the first and the second player.
func gradeConnect4Moves(ctx context.Context, moves []string, budget int64, sides [2]string) ([]Move, error) {
	if budget <= 0 {
		budget = connect4.DefaultBudget
	}
	pos := make([]connect4.Position, 0, len(moves)+1)
	var p connect4.Position
	pos = append(pos, p)
	for i, mv := range moves {
		if p.Over() != "" {
			return nil, fmt.Errorf("analysis: move %d %q after the game ended (%s)", i+1, mv, p.Over())
		}
		col, err := connect4.ParseColumn(mv)
		if err != nil {
			return nil, fmt.Errorf("analysis: move %d: %w", i+1, err)
		}
		if !p.CanPlay(col) {
			return nil, fmt.Errorf("analysis: move %d: column %s is full", i+1, connect4.ColumnName(col))
		}
		p.Play(col)
		pos = append(pos, p)
	}
	s := connect4.NewSolver()
	// value[i] is position i's value for its mover.
	value := make([]connect4.Value, len(pos))
	for i, q := range pos {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch q.Over() {
		case "four_in_a_row":
			value[i] = connect4.Loss // the mover's opponent just made four
		case "board_full":
			value[i] = connect4.Draw
		default:
			value[i], _ = s.Solve(q, budget)
		}
	}
	out := make([]Move, len(moves))
	for i, mv := range moves {
		col, _ := connect4.ParseColumn(mv)
		before, after := value[i], value[i+1].Neg()
		m := Move{Ply: i + 1, Move: connect4.ColumnName(col), Side: sides[i%2], Tag: TagUnknown}
		if before != connect4.Unknown {
			m.Value = before.String()
		}
		switch {
		case before != connect4.Unknown && after != connect4.Unknown:
			switch {
			case after >= before:
				m.Tag = TagBest
			case after == connect4.Loss:
				m.Tag = TagBlunder
			default:
				m.Tag = TagMistake
			}
		case after == connect4.Win, before == connect4.Loss:
			m.Tag = TagBest
		}
		allowed := i+2 < len(pos) && pos[i+2].Over() == "four_in_a_row"
		if allowed {
			if alt, ok := safeColumn(pos[i], col); ok {
				m.Tag, m.Best = TagBlunder, connect4.ColumnName(alt)
			}
		}
		if m.Tag != TagBest && m.Tag != TagUnknown && m.Best == "" {
			m.Best = keeping(s, pos[i], before, budget)
		}
		out[i] = m
	}
	return out, nil
}

// safeColumn finds, in p, a column other than played after which the
// opponent cannot make four at once (a win for the mover counts), from the
// centre out.
func safeColumn(p connect4.Position, played int) (int, bool) {
	for _, col := range []int{3, 2, 4, 1, 5, 0, 6} {
		if col == played || !p.CanPlay(col) {
			continue
		}
		if p.Wins(col) {
			return col, true
		}
		q := p
		q.Play(col)
		if q.Full() || !q.CanWinNext() {
			return col, true
		}
	}
	return 0, false
}

// keeping names a column that keeps the mover's value v in p, from the
// centre out, or "" when none is proven within the budget.
func keeping(s *connect4.Solver, p connect4.Position, v connect4.Value, budget int64) string {
	for _, col := range []int{3, 2, 4, 1, 5, 0, 6} {
		if !p.CanPlay(col) {
			continue
		}
		if p.Wins(col) {
			return connect4.ColumnName(col)
		}
		q := p
		q.Play(col)
		after := connect4.Draw
		if !q.Full() {
			w, _ := s.Solve(q, budget)
			after = w.Neg()
		}
		if after == v {
			return connect4.ColumnName(col)
		}
	}
	return ""
}
