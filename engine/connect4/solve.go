package connect4

// Value is a position's perfect-play outcome for the side to move.
type Value int8

const (
	Loss    Value = -1
	Draw    Value = 0
	Win     Value = 1
	Unknown Value = 2 // the node budget ran out before a proof
)

func (v Value) String() string {
	switch v {
	case Loss:
		return "loss"
	case Draw:
		return "draw"
	case Win:
		return "win"
	}
	return "unknown"
}

// Neg is the value for the other side: a win is the opponent's loss.
func (v Value) Neg() Value {
	if v == Unknown {
		return v
	}
	return -v
}

// DefaultBudget is the solver's node budget per position when none is
// given: under a second on a loaded machine (docs/PERFORMANCE.md has the
// figures).
const DefaultBudget = 1_000_000

// solverTableBits sizes the solver's table: 2^21 entries of 8 bytes, room
// for every node of a few budgets.
const solverTableBits = 21

// Solver proves positions win, draw or loss. Its table outlives one call:
// an entry is a proven bound for its position whatever path led there, so
// solving the positions of one game in turn shares the work. A Solver is
// not safe for concurrent use.
type Solver struct {
	table  []uint64
	nodes  int64
	budget int64
	abort  bool
}

// NewSolver returns a solver with an empty table.
func NewSolver() *Solver {
	return &Solver{table: make([]uint64, 1<<solverTableBits)}
}

// Solve returns the value of p for the side to move within budget nodes
// (DefaultBudget if budget <= 0), and the nodes it searched. It answers
// Unknown when the budget ran out. p must not be over (Over() == "").
func (s *Solver) Solve(p Position, budget int64) (Value, int64) {
	if budget <= 0 {
		budget = DefaultBudget
	}
	s.nodes, s.budget, s.abort = 0, budget, false
	if p.CanWinNext() {
		return Win, 1
	}
	// Two null-window searches: is it a win? if not, is it at least a
	// draw? Each is cheaper than one search with the full window.
	v := s.negamax(p, 0, 1)
	if s.abort {
		return Unknown, s.nodes
	}
	if v >= 1 {
		return Win, s.nodes
	}
	v = s.negamax(p, -1, 0)
	if s.abort {
		return Unknown, s.nodes
	}
	if v >= 0 {
		return Draw, s.nodes
	}
	return Loss, s.nodes
}

// Table entries: the key (49 bits) above a used bit and the bounds, each
// stored plus one in two bits.
func pack(key uint64, lo, hi int) uint64 {
	return key<<8 | 1<<7 | uint64(lo+1)<<2 | uint64(hi+1)
}

// slot spreads keys over the table: the low bits of a key are the first
// columns alone, which many positions share.
func slot(key uint64, bits uint) uint64 { return (key * 0x9e3779b97f4a7c15) >> (64 - bits) }

func (s *Solver) lookup(key uint64) (lo, hi int, ok bool) {
	e := s.table[slot(key, solverTableBits)]
	if e&(1<<7) == 0 || e>>8 != key {
		return -1, 1, false
	}
	return int(e>>2&3) - 1, int(e&3) - 1, true
}

func (s *Solver) store(key uint64, lo, hi int) {
	s.table[slot(key, solverTableBits)] = pack(key, lo, hi)
}

// negamax returns the value of p (-1, 0, 1) for the side to move, who
// cannot win at once, within (alpha, beta): a result <= alpha is an upper
// bound, >= beta a lower bound.
func (s *Solver) negamax(p Position, alpha, beta int) int {
	s.nodes++
	if s.nodes > s.budget {
		s.abort = true
		return 0
	}
	next := p.nonLosing()
	if next == 0 {
		return -1 // every move lets the opponent make four
	}
	if p.moves >= Cells-2 {
		// Two cells left, neither wins for the mover, and the mover's
		// disc does not let the opponent win: the board fills.
		return 0
	}
	key := p.Key()
	lo, hi, ok := s.lookup(key)
	if ok {
		if lo >= beta {
			return lo
		}
		if hi <= alpha {
			return hi
		}
		alpha, beta = max(alpha, lo), min(beta, hi)
	} else {
		lo, hi = -1, 1
	}
	var buf [Width]uint64
	best := -1
	a := alpha
	for _, m := range p.ordered(next, 0, &buf) {
		q := p
		q.playBit(m)
		v := -s.negamax(q, -beta, -a)
		if s.abort {
			return 0
		}
		if v > best {
			best = v
		}
		if v >= beta {
			s.store(key, max(lo, v), hi)
			return v
		}
		if v > a {
			a = v
		}
	}
	if best <= alpha {
		s.store(key, lo, min(hi, best))
	} else {
		s.store(key, max(lo, best), min(hi, best))
	}
	return best
}

// SolveMoves is Solve on the position after moves, for one call: it
// builds a solver, so a caller solving many positions keeps its own.
func SolveMoves(moves []string, budget int64) (Value, error) {
	p, err := FromMoves(moves)
	if err != nil {
		return Unknown, err
	}
	if r := p.Over(); r != "" {
		return Unknown, &OverError{Reason: r, Ply: p.moves}
	}
	v, _ := NewSolver().Solve(p, budget)
	return v, nil
}
