// Package analysis grades the moves of finished games: for chess, each
// position evaluated by a UCI engine that took no part in the game
// (Stockfish when configured, else vesper's own engine through the same
// UCI interface) at a fixed depth, so that two runs on the same engine
// build give the same numbers; for gomoku, an exact threat check that says
// `unknown` rather than guess; for Connect Four, an exact solver under a
// node budget per position (win, draw or loss, or `unknown`).
//
// The types here are analysis.json, the file the site publishes beside
// match.json: it names the engine, its version and the depth, so anyone
// can recompute it.
package analysis

// FormatVersion is analysis.json's format; it changes when a field's
// meaning does.
const FormatVersion = 1

// Tag grades one move. The values are the only spelling of each tag.
type Tag string

const (
	TagBest       Tag = "best"       // the engine's best move, or no worse than it
	TagGood       Tag = "good"       // below the inaccuracy threshold
	TagInaccuracy Tag = "inaccuracy" // Win% drop of at least InaccuracyDrop
	TagMistake    Tag = "mistake"    // at least MistakeDrop (Connect Four: a win turned into a draw)
	TagBlunder    Tag = "blunder"    // at least BlunderDrop (gomoku: a missed five or an allowed win; Connect Four: a win or a draw turned into a loss, or an allowed four)
	TagUnknown    Tag = "unknown"    // gomoku, Connect Four: no exact grade
)

// Tags lists the tags in the order pages show them.
var Tags = []Tag{TagBest, TagGood, TagInaccuracy, TagMistake, TagBlunder, TagUnknown}

// The thresholds on the mover's Win% drop (0-100 scale), Lichess's
// 0.1/0.2/0.3 on its -1..1 winning-chances scale.
const (
	InaccuracyDrop = 5.0
	MistakeDrop    = 10.0
	BlunderDrop    = 15.0
)

// Status says where a game's analysis is.
type Status string

const (
	StatusDone   Status = "done"
	StatusFailed Status = "failed" // shown as no analysis, never a partial one
)

// Engine names what computed an analysis.
type Engine struct {
	Name    string `json:"name"`    // the engine's "id name", e.g. "Stockfish 15.1"
	Version string `json:"version"` // build identity as far as the engine tells it
	Depth   int    `json:"depth,omitempty"`
	Nodes   int64  `json:"nodes,omitempty"`
	// HashMB is the transposition table the engine searched with: at a
	// fixed depth the numbers depend on it, so recomputing needs it too.
	HashMB int `json:"hash_mb,omitempty"`
}

// Eval is a position's evaluation from White's side (chess): centipawns,
// or a forced mate in Mate moves (positive: White mates). At most one of
// them is meaningful: Mate != 0 wins over CP. A mate's CP is ±MateCP, so a
// reader that looks at CP alone still sees who wins.
type Eval struct {
	CP   int `json:"cp"`
	Mate int `json:"mate,omitempty"`
	// End is set on the final position of a game that ended there by rule
	// (the reason token: "checkmate", "stalemate", "threefold_repetition",
	// "fifty_move_rule", "insufficient_material"). No engine was asked: a
	// checkmate is CP ±MateCP for the side that mated, a draw CP 0.
	End string `json:"end,omitempty"`
}

// MateCP is what a forced mate counts as in centipawns, and the cap on
// every evaluation before it becomes a Win% or a centipawn loss: Lichess's
// ceiling (scalachess Cp.CEILING, 1000; a mate is Cp.ceilingWithSignum).
// A loss is therefore at most 2*MateCP. Evals keep the engine's own
// figure; only the grading caps it.
const MateCP = 1000

// Move is one graded move.
type Move struct {
	Ply  int    `json:"ply"`  // 1-based, as the protocol's ply tag
	Move string `json:"move"` // as played: SAN for chess, the point for gomoku
	Side string `json:"side"` // "white"/"black", "black"/"white" stones for gomoku, "red"/"yellow" for Connect Four
	// Best is the engine's best move in the position before (chess, SAN),
	// or for gomoku the winning point missed / the threat to answer, or for
	// Connect Four a column that keeps the value (or does not allow four).
	Best string `json:"best,omitempty"`
	// Value is the perfect-play value of the position before the move for
	// the mover, "win", "draw" or "loss" (Connect Four only; absent when
	// the solver's budget ran out).
	Value string `json:"value,omitempty"`
	// Before and After evaluate the positions before and after the move
	// (chess only).
	Before *Eval `json:"before,omitempty"`
	After  *Eval `json:"after,omitempty"`
	// Loss is the centipawn loss against Best, from the mover's side,
	// never negative (chess only; mates count as MateCP).
	Loss int `json:"cp_loss"`
	// WinBefore and WinAfter are the mover's Win% (0-100) before and after.
	// When the move is the engine's Best, WinAfter is WinBefore (the search
	// of the position before already valued that move), so its loss is 0
	// and its accuracy 100 even if the search of the next position, one
	// ply deeper along that line, came out a little different.
	WinBefore float64 `json:"win_before"`
	WinAfter  float64 `json:"win_after"`
	// Accuracy is Lichess's move accuracy (0-100) from the Win% drop.
	Accuracy float64 `json:"accuracy"`
	Tag      Tag     `json:"tag"`
}

// Player is one side's figures for the game.
type Player struct {
	Pubkey   string      `json:"pubkey"`
	Side     string      `json:"side"`
	Moves    int         `json:"moves"`
	Accuracy float64     `json:"accuracy"` // chess only
	ACPL     float64     `json:"acpl"`     // average centipawn loss, chess only
	Counts   map[Tag]int `json:"counts"`
}

// Game is a finished game's analysis: analysis.json.
type Game struct {
	Format int    `json:"format"`
	Match  string `json:"match"`
	Game   string `json:"game"` // "chess", "gomoku" or "connect4"
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"` // why it failed
	Engine Engine `json:"engine"`
	// Formula is the chess grading's constants (chess only), so that the
	// file alone recomputes its figures.
	Formula *Formula `json:"formula,omitempty"`
	Moves   []Move   `json:"moves"`
	Players []Player `json:"players"` // first (White / Black stones) then second
}
