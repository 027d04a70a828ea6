package analysis

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// UCIPlayer is a UCI engine that plays rather than grades: `vesper play`'s
// `uci:` engines. It is the same driver as the analysis (handshake, pipes,
// kill on a hang) with the options and limits of a player.
type UCIPlayer struct {
	e *uciEngine
}

// PlayLimits bound one search; zero fields are unset. With none set the
// search is "go depth 1" (an engine given "go" alone may think forever).
type PlayLimits struct {
	Movetime time.Duration
	Nodes    int64
	Depth    int
}

// PlayerMove is an engine's answer: its move in UCI and its last score
// from the side to move (Mate is moves to mate, signed; 0 when Scored is
// false or the score is in centipawns).
type PlayerMove struct {
	Move   string
	CP     int
	Mate   int
	Scored bool
}

// StartUCIPlayer starts the engine command (a path; arguments split on
// spaces), shakes hands and sets options (name -> value). timeout bounds
// every exchange beyond the search's own limit.
func StartUCIPlayer(ctx context.Context, command string, options map[string]string, timeout time.Duration) (*UCIPlayer, error) {
	f := strings.Fields(command)
	if len(f) == 0 {
		return nil, &EngineError{Engine: command, Err: errors.New("no command")}
	}
	e, err := startExternal(f[0], 0, timeout, f[1:]...)
	if err != nil {
		return nil, err
	}
	if err := e.handshake(ctx); err != nil {
		_ = e.close(true)
		return nil, err
	}
	for name, value := range options {
		if err := e.send("setoption name " + name + " value " + value); err != nil {
			return nil, err
		}
	}
	if err := e.ready(ctx); err != nil {
		return nil, err
	}
	return &UCIPlayer{e: e}, nil
}

// Name is what the engine calls itself.
func (p *UCIPlayer) Name() string { return p.e.name }

// NewGame forgets the previous game (ucinewgame).
func (p *UCIPlayer) NewGame(ctx context.Context) error { return p.e.newGame(ctx) }

// Best searches the position after moves (UCI from the start position)
// within lim and returns the engine's move and score.
func (p *UCIPlayer) Best(ctx context.Context, moves []string, lim PlayLimits) (PlayerMove, error) {
	pos := "position startpos"
	if len(moves) > 0 {
		pos += " moves " + strings.Join(moves, " ")
	}
	goCmd := "go"
	if lim.Movetime > 0 {
		goCmd += " movetime " + strconv.FormatInt(lim.Movetime.Milliseconds(), 10)
	}
	if lim.Nodes > 0 {
		goCmd += " nodes " + strconv.FormatInt(lim.Nodes, 10)
	}
	if lim.Depth > 0 {
		goCmd += " depth " + strconv.Itoa(lim.Depth)
	}
	if goCmd == "go" {
		goCmd = "go depth 1"
	}
	if err := p.e.send(pos); err != nil {
		return PlayerMove{}, err
	}
	if err := p.e.send(goCmd); err != nil {
		return PlayerMove{}, err
	}
	var out PlayerMove
	err := p.e.await(ctx, "bestmove", func(f []string) (bool, error) {
		switch f[0] {
		case "info":
			// A score the parser cannot read is the engine's business;
			// a player needs only the move.
			if cp, mate, ok, err := parseScore(f[1:]); err == nil && ok {
				out.CP, out.Mate, out.Scored = cp, mate, true
			}
		case "bestmove":
			if len(f) < 2 {
				return false, errors.New(`answered "bestmove" without a move`)
			}
			out.Move = f[1]
			return true, nil
		}
		return false, nil
	})
	return out, err
}

// Close quits the engine (killing it if it does not leave).
func (p *UCIPlayer) Close() error {
	err := p.e.close(false)
	if errors.Is(err, errKilled) {
		return nil
	}
	return err
}
