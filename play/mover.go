package play

import (
	"context"
	"fmt"
	"time"

	"vesper/analysis"
	"vesper/engine"
	"vesper/match"
	"vesper/nostr"
)

// Mover decides for one game: a move, and whether to take a pending offer.
type Mover interface {
	Choose(ctx context.Context, req Request) Choice
	Close() error
}

// Choice is one answer of a mover: the answer, or Kind and Why when it
// gave none (an agent's unparsable output, a time-out). EvalCP is an
// engine's score from the mover's side, when it has one.
type Choice struct {
	Answer Answer
	Kind   string
	Why    string
	EvalCP *int
}

// Engine limits for the built-in and UCI engines.
type Limits struct {
	Movetime time.Duration
	Nodes    int64
	Depth    int
}

// takesOffer is the engines' offer policy: a win offered is always taken;
// a draw when the engine's score is within drawCP of even (drawCP < 0:
// never, and never without a score).
func takesOffer(req Request, evalCP *int, drawCP int) bool {
	switch {
	case req.Offer == "":
		return false
	case req.Offer == req.Role:
		return true
	case req.Offer != match.Draw || drawCP < 0 || evalCP == nil:
		return false
	}
	return *evalCP <= drawCP && *evalCP >= -drawCP
}

// mine turns a score from the side to move's view into the mover's: an
// offer question may come on the opponent's turn (req.Ply is the pending
// ply; the first player moves on odd plies).
func mine(req Request, cp *int) *int {
	if cp == nil || req.Ply == 0 {
		return cp
	}
	if (req.Ply%2 == 1) == (req.Role == match.First) {
		return cp
	}
	v := -*cp
	return &v
}

// Builtin is vesper's own engine (the house's).
type Builtin struct {
	Limits Limits
	DrawCP int
}

func (b *Builtin) lim() engine.Limits {
	return engine.Limits{Nodes: b.Limits.Nodes, Depth: b.Limits.Depth, Time: b.Limits.Movetime}
}

// Choose searches the position of req. In chess the search's score
// weighs a draw offer (DrawCP); gomoku's search gives none, so there a
// draw offer is never taken.
func (b *Builtin) Choose(_ context.Context, req Request) Choice {
	if req.Game == nostr.GameChess {
		mv, cp, err := engine.ChessMoveScored("", req.Moves, b.lim())
		if err != nil {
			return Choice{Kind: KindFailed, Why: err.Error()}
		}
		eval := mine(req, &cp)
		return Choice{Answer: Answer{Move: mv, AcceptOffer: takesOffer(req, eval, b.DrawCP)}, EvalCP: eval}
	}
	mv, err := engine.BestMove(req.Game, req.Moves, b.lim())
	if err != nil {
		return Choice{Kind: KindFailed, Why: err.Error()}
	}
	return Choice{Answer: Answer{Move: mv, AcceptOffer: takesOffer(req, nil, b.DrawCP)}}
}

// Close does nothing: the built-in engine holds no process.
func (b *Builtin) Close() error { return nil }

// UCI is an external UCI engine, one process per game, started on the
// first decision.
type UCI struct {
	Command string
	Options map[string]string
	Limits  Limits
	DrawCP  int
	// Timeout bounds the engine's exchanges beyond its search limit.
	Timeout time.Duration

	p *analysis.UCIPlayer
}

// Choose asks the engine for the position of req (chess only).
func (u *UCI) Choose(ctx context.Context, req Request) Choice {
	if req.Game != nostr.GameChess {
		return Choice{Kind: KindFailed, Why: "a UCI engine plays chess only"}
	}
	if u.p == nil {
		p, err := analysis.StartUCIPlayer(ctx, u.Command, u.Options, u.timeout())
		if err != nil {
			return Choice{Kind: KindFailed, Why: err.Error()}
		}
		if err := p.NewGame(ctx); err != nil {
			_ = p.Close()
			return Choice{Kind: KindFailed, Why: err.Error()}
		}
		u.p = p
	}
	res, err := u.p.Best(ctx, req.Moves, analysis.PlayLimits{Movetime: u.Limits.Movetime, Nodes: u.Limits.Nodes, Depth: u.Limits.Depth})
	if err != nil {
		// A failed engine is restarted at the next decision.
		_ = u.p.Close()
		u.p = nil
		return Choice{Kind: KindFailed, Why: err.Error()}
	}
	var eval *int
	if res.Scored {
		cp := res.CP
		if res.Mate > 0 {
			cp = 100_000
		} else if res.Mate < 0 {
			cp = -100_000
		}
		eval = mine(req, &cp)
	}
	return Choice{Answer: Answer{Move: res.Move, AcceptOffer: takesOffer(req, eval, u.DrawCP)}, EvalCP: eval}
}

func (u *UCI) timeout() time.Duration {
	t := u.Timeout
	if t <= 0 {
		t = 30 * time.Second
	}
	return t + u.Limits.Movetime
}

// Close quits the engine.
func (u *UCI) Close() error {
	if u.p == nil {
		return nil
	}
	err := u.p.Close()
	u.p = nil
	return err
}

// Agent is a command asked once per decision.
type Agent struct{ Cmd Command }

// Choose runs the command.
func (a *Agent) Choose(ctx context.Context, req Request) Choice {
	if len(a.Cmd.Argv) == 0 {
		return Choice{Kind: KindFailed, Why: "no agent command"}
	}
	ans, kind, why := a.Cmd.Ask(ctx, req)
	return Choice{Answer: ans, Kind: kind, Why: why}
}

// Close does nothing: the command runs once per decision.
func (a *Agent) Close() error { return nil }

// Describe names a mover for the records: a mover that describes itself
// (a model: its name, prompt template and generation settings) says so.
func Describe(m Mover) string {
	switch m := m.(type) {
	case interface{ Describe() string }:
		return m.Describe()
	case *Builtin:
		return "builtin"
	case *UCI:
		return "uci:" + m.Command
	case *Agent:
		return fmt.Sprintf("agent:%v", m.Cmd.Argv)
	}
	return fmt.Sprintf("%T", m)
}
