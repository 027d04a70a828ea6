package search

import "vesper/engine/board"

const (
	boundNone uint8 = iota
	boundUpper
	boundLower
	boundExact
)

type ttEntry struct {
	key   uint64
	move  board.Move
	score int16
	depth int8
	bound uint8
}

// table is a direct-mapped transposition table; a slot is overwritten
// unless it holds a deeper result for the same position.
type table struct {
	entries []ttEntry
	mask    uint64
}

func newTable(megabytes int) table {
	n := uint64(1)
	for n*2*16 <= uint64(max(megabytes, 1))<<20 {
		n *= 2
	}
	return table{entries: make([]ttEntry, n), mask: n - 1}
}

func (t *table) clear() { clear(t.entries) }

func (t *table) probe(key uint64) (ttEntry, bool) {
	e := t.entries[key&t.mask]
	return e, e.key == key && e.bound != boundNone
}

func (t *table) store(key uint64, m board.Move, score, depth int, bound uint8) {
	e := &t.entries[key&t.mask]
	if e.key == key && int(e.depth) > depth && bound != boundExact {
		return
	}
	if m == board.NullMove && e.key == key {
		m = e.move
	}
	*e = ttEntry{key: key, move: m, score: int16(score), depth: int8(min(depth, 127)), bound: bound}
}

// Mate scores are stored relative to the node, not the root, so that a
// transposition reached at another ply reads the right distance.
func scoreToTT(score, ply int) int {
	switch {
	case score >= mateBound:
		return score + ply
	case score <= -mateBound:
		return score - ply
	}
	return score
}

func scoreFromTT(score, ply int) int {
	switch {
	case score >= mateBound:
		return score - ply
	case score <= -mateBound:
		return score + ply
	}
	return score
}
