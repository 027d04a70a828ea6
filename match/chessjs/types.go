package chessjs

// Color is a side. The zero value is NoColor, the winner of a draw.
type Color int8

// The sides. White moves first from the standard position.
const (
	NoColor Color = iota
	White
	Black
)

// String returns "w" or "b", as FEN spells the side to move.
func (c Color) String() string {
	switch c {
	case White:
		return "w"
	case Black:
		return "b"
	}
	return "-"
}

// Other returns the opponent of c (NoColor for NoColor).
func (c Color) Other() Color {
	switch c {
	case White:
		return Black
	case Black:
		return White
	}
	return NoColor
}

// Move is a move as chess.js reports it.
type Move struct {
	From, To  string // squares, "e2", "e4"
	Promotion byte   // 'q', 'r', 'b', 'n', or 0
	SAN       string // as chess.js prints it, "exd8=Q+"
}

// UCI returns the canonical form tools post: "e2e4", "e7e8q".
func (m Move) UCI() string {
	if m.Promotion == 0 {
		return m.From + m.To
	}
	return m.From + m.To + string(m.Promotion)
}

// Reasons a game ends by rule, as PROTOCOL.md section 1 spells them.
const (
	ReasonCheckmate            = "checkmate"
	ReasonStalemate            = "stalemate"
	ReasonThreefoldRepetition  = "threefold_repetition"
	ReasonFiftyMoveRule        = "fifty_move_rule"
	ReasonInsufficientMaterial = "insufficient_material"
)

// Outcome says whether chess.js isGameOver() holds and why. Reason is the
// first that holds of checkmate, stalemate, threefold_repetition,
// fifty_move_rule and insufficient_material, or "" when the game goes on.
// Winner is the side that mated, NoColor otherwise.
type Outcome struct {
	Over   bool
	Draw   bool
	Winner Color
	Reason string
}
