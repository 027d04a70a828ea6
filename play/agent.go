package play

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"vesper/seat"
)

// Request is what an agent is given on stdin, once per decision: what the
// arenas give a model.
type Request struct {
	// Request is what is wanted: RequestMove (a move, or accept_offer when
	// Offer is set) or RequestOffer (only whether to take the opponent's
	// offer: no legal moves are sent, and a move would not be played).
	Request string `json:"request"`
	Match   string `json:"match"`
	Game    string `json:"game"`
	// Color is the side match.Side names: white/black in chess,
	// black/white in gomoku (the first player has the black stones),
	// red/yellow in Connect Four; Role first/second.
	Color    string           `json:"color"`
	Role     string           `json:"role"`
	Opponent string           `json:"opponent"`
	Ply      int              `json:"ply"`
	FEN      string           `json:"fen,omitempty"`
	PGN      string           `json:"pgn,omitempty"`
	Board    string           `json:"board"`
	Moves    []string         `json:"moves"`
	SANMoves []string         `json:"san_moves"`
	Legal    []seat.LegalMove `json:"legal_moves,omitempty"`
	InCheck  bool             `json:"in_check"`
	Deadline *seat.Time       `json:"deadline"`
	// Offer is the opponent's pending offer (draw, first or second), if
	// any: answer accept_offer to take it.
	Offer string `json:"offer,omitempty"`
	// OpponentComment is the opponent's latest table talk, where there is
	// any.
	OpponentComment string `json:"opponent_comment,omitempty"`
	// PreviousReasoning is this agent's own reasoning from its previous
	// answer in the game.
	PreviousReasoning string `json:"previous_reasoning,omitempty"`
	// Attempt counts from 1; on a retry Refusal says why the last answer
	// was refused.
	Attempt int      `json:"attempt"`
	Refusal *Refusal `json:"refusal,omitempty"`
}

// Refusal is why an answer was refused: the fold's rule token (or one of
// the Kind* tokens below for an answer that named no move) and reason.
type Refusal struct {
	Rule   string `json:"rule"`
	Reason string `json:"reason"`
	Answer string `json:"answer,omitempty"`
}

// Answer is an agent's reply: a move (UCI or SAN in chess, a point in
// gomoku, a column in Connect Four), or "resign"; offer "draw" posts a draw offer after the move, on
// the position the opponent must answer; accept_offer takes the opponent's
// pending offer. Comment and reasoning
// are kept in the record and published with the move: the comment at once,
// the reasoning committed and revealed after the game (PROTOCOL.md section
// 8).
type Answer struct {
	Move        string `json:"move"`
	Offer       string `json:"offer,omitempty"`
	AcceptOffer bool   `json:"accept_offer,omitempty"`
	Comment     string `json:"comment,omitempty"`
	Reasoning   string `json:"reasoning,omitempty"`
	// Usage is the agent's self-reported effort (PROTOCOL.md section 8.3):
	// a JSON object of input_tokens, output_tokens, reasoning_tokens,
	// cost_usd and latency_ms. A malformed one is left off the move, not
	// held against the answer.
	Usage json.RawMessage `json:"usage,omitempty"`
	// Form is how ParseAnswer read it (FormJSON, FormInText, FormFenced,
	// FormBare); "" for a mover that answers in Go.
	Form string `json:"-"`
}

// Kinds of a refused attempt that the fold never saw.
const (
	KindIllegal    = "illegal"    // the fold refused the move (Refusal.Rule says why)
	KindUnparsable = "unparsable" // stdout was not one JSON object
	KindEmpty      = "empty"      // no output, or an object naming nothing
	KindTimeout    = "time_out"   // the command did not answer in time and was killed
	KindFailed     = "failed"     // the command could not run or exited non-zero
)

// maxOutput bounds what an agent may print: one answer is small.
const maxOutput = 1 << 20

func shorten(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// Command runs an agent command once per decision.
type Command struct {
	// Argv is the command and its arguments (run without a shell).
	Argv []string
	// Timeout is how long one answer may take; the command (and its
	// process group) is then killed.
	Timeout time.Duration
	Dir     string
}

// Ask runs the command with req on stdin. kind is "" for an answer, else
// the attempt's failure kind with why.
func (c *Command) Ask(ctx context.Context, req Request) (ans Answer, kind, why string) {
	in, err := json.Marshal(req)
	if err != nil {
		return Answer{}, KindFailed, err.Error()
	}
	actx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(actx, c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Stdin = bytes.NewReader(append(in, '\n'))
	var out limited
	var errb limited
	cmd.Stdout, cmd.Stderr = &out, &errb
	ownGroup(cmd)
	// A hung agent's children may hold stdout open: the kill takes the
	// group, and Wait gives up on the pipes soon after.
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case actx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		return Answer{}, KindTimeout, fmt.Sprintf("no answer within %v: killed", c.Timeout)
	case ctx.Err() != nil:
		return Answer{}, KindFailed, ctx.Err().Error()
	case err != nil:
		var ee *exec.ExitError
		msg := err.Error()
		if errors.As(err, &ee) {
			msg = "exited with " + ee.ProcessState.String()
		}
		if t := strings.TrimSpace(errb.String()); t != "" {
			msg += "; stderr: " + shorten(t)
		}
		return Answer{}, KindFailed, msg
	}
	return ParseAnswer(out.Bytes())
}

// limited is a buffer that keeps the first maxOutput bytes.
type limited struct{ bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := maxOutput - l.Len(); room > 0 {
		l.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
