package search

import (
	"errors"
	"sync/atomic"
	"time"

	"vesper/engine/board"
)

const (
	maxPly    = 128
	maxDepth  = 64
	mate      = 30000
	mateBound = mate - 2*maxPly
	infinity  = 32000
)

// ErrNoMoves is returned when the side to move has no legal move.
var ErrNoMoves = errors.New("search: no legal move")

// Limits bound a search; any zero field is no bound, and a search with no
// bound at all runs until Stop is set. Depth 1 always completes, so a
// search returns a move however small the limits.
type Limits struct {
	Nodes int64
	Depth int
	Time  time.Duration
	// Stop, when set by another goroutine, ends the search at its next
	// check (every 1024 nodes).
	Stop *atomic.Bool
}

// Info describes a completed iteration.
type Info struct {
	Depth    int
	SelDepth int
	// Score is in centipawns from the side to move's view; when Mate is
	// not 0 it is a mate score and Mate is the distance in moves, negative
	// when the side to move is being mated.
	Score   int
	Mate    int
	Nodes   int64
	Elapsed time.Duration
	PV      []board.Move
}

// Result is the chosen move with the last completed iteration's Info.
type Result struct {
	Move board.Move
	Info
}

type frame struct {
	pos       board.Position
	isNull    bool // reached by a null move
	nullFloor int  // lowest key index a repetition scan may look at
}

// Searcher runs iterative-deepening alpha-beta. It is single-threaded and
// keeps its transposition table between searches (Clear empties it); a
// fresh Searcher with a node limit always returns the same result for the
// same input.
type Searcher struct {
	tt      table
	stack   [maxPly + 1]frame
	keys    []uint64
	rootIdx int
	history [2][64][64]int32
	killers [maxPly + 1][2]board.Move
	pv      [maxPly + 1][maxPly + 1]board.Move
	pvLen   [maxPly + 1]int

	nodes, nodeLimit int64
	timeLimit        time.Duration
	start            time.Time
	stop             *atomic.Bool
	canAbort         bool
	aborted          bool
	selDepth         int
	rootBest         board.Move
}

// NewSearcher makes a searcher with a transposition table of about hashMB megabytes.
func NewSearcher(hashMB int) *Searcher {
	return &Searcher{tt: newTable(hashMB)}
}

// Clear forgets everything learnt in earlier searches.
func (s *Searcher) Clear() {
	s.tt.clear()
	s.history = [2][64][64]int32{}
}

// Search finds the best move in g's current position. info, when not nil,
// is called after each completed iteration.
func (s *Searcher) Search(g *Game, lim Limits, info func(Info)) (Result, error) {
	root := g.Pos
	legal := root.LegalMoves()
	if len(legal) == 0 {
		return Result{}, ErrNoMoves
	}
	s.keys = append(s.keys[:0], g.history...)
	s.rootIdx = len(s.keys) - 1
	s.stack[0] = frame{pos: root}
	s.nodes, s.nodeLimit, s.timeLimit = 0, lim.Nodes, lim.Time
	s.stop, s.canAbort, s.aborted, s.selDepth = lim.Stop, false, false, 0
	s.start = time.Now()
	s.killers = [maxPly + 1][2]board.Move{}
	for c := range s.history {
		for f := range s.history[c] {
			for t := range s.history[c][f] {
				s.history[c][f][t] /= 8
			}
		}
	}

	depthLimit := maxDepth
	if lim.Depth > 0 {
		depthLimit = min(lim.Depth, maxDepth)
	}
	if len(legal) == 1 {
		depthLimit = 1
	}
	res := Result{Move: legal[0]}
	for d := 1; d <= depthLimit; d++ {
		s.rootBest = board.NullMove
		score := s.negamax(0, d, -infinity, infinity, true)
		if s.aborted {
			if s.rootBest != board.NullMove && s.rootBest != res.Move {
				res.Move = s.rootBest
				res.PV = []board.Move{s.rootBest}
			}
			break
		}
		if s.pvLen[0] > 0 {
			res.Move = s.pv[0][0]
		}
		res.Info = s.info(d, score)
		if info != nil {
			info(res.Info)
		}
		s.canAbort = true
		if s.timeLimit > 0 && time.Since(s.start) > s.timeLimit/2 {
			break // the next iteration would most likely not finish
		}
		if res.Mate != 0 && d >= 2*abs(res.Mate)+2 {
			break // no deeper search finds a shorter mate
		}
	}
	res.Nodes, res.Elapsed = s.nodes, time.Since(s.start)
	return res, nil
}

func (s *Searcher) info(depth, score int) Info {
	in := Info{Depth: depth, SelDepth: s.selDepth, Score: score, Nodes: s.nodes, Elapsed: time.Since(s.start)}
	in.PV = append([]board.Move(nil), s.pv[0][:s.pvLen[0]]...)
	switch {
	case score >= mateBound:
		in.Mate = (mate - score + 1) / 2
	case score <= -mateBound:
		in.Mate = -(mate + score) / 2
	}
	return in
}

func (s *Searcher) shouldStop() bool {
	if s.aborted {
		return true
	}
	if !s.canAbort {
		return false
	}
	if s.nodeLimit > 0 && s.nodes >= s.nodeLimit {
		s.aborted = true
	} else if s.nodes&1023 == 0 {
		if (s.stop != nil && s.stop.Load()) || (s.timeLimit > 0 && time.Since(s.start) >= s.timeLimit) {
			s.aborted = true
		}
	}
	return s.aborted
}

// repeated reports a draw by repetition at ply: the position occurred twice
// before in the game (a threefold, which ends the game at once under
// PROTOCOL.md section 4), or once before inside the search tree, where the
// side that repeated could repeat again.
func (s *Searcher) repeated(ply int) bool {
	idx := s.rootIdx + ply
	f := &s.stack[ply]
	k := s.keys[idx]
	floor := max(idx-f.pos.HalfMove(), f.nullFloor)
	count := 0
	for i := idx - 2; i >= floor; i -= 2 {
		if s.keys[i] == k {
			if i > s.rootIdx {
				return true
			}
			count++
			if count >= 2 {
				return true
			}
		}
	}
	return false
}

// push sets up ply+1 after m (NullMove for a null move).
func (s *Searcher) push(ply int, m board.Move) *board.Position {
	f, child := &s.stack[ply], &s.stack[ply+1]
	child.pos = f.pos
	child.nullFloor = f.nullFloor
	child.isNull = m == board.NullMove
	if child.isNull {
		child.pos.ApplyNull()
		child.nullFloor = s.rootIdx + ply + 1
	} else {
		child.pos.Apply(m)
	}
	s.keys = append(s.keys[:s.rootIdx+ply+1], child.pos.Key())
	return &child.pos
}

func (s *Searcher) updatePV(ply int, m board.Move) {
	s.pv[ply][0] = m
	n := copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
	s.pvLen[ply] = n + 1
}
