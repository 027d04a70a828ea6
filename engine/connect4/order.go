package connect4

import "math/bits"

// centreOrder lists the columns from the centre out: a disc in the centre
// column takes part in the most windows of four.
var centreOrder = [Width]int{3, 2, 4, 1, 5, 0, 6}

// ordered returns the cells of moves (single-cell bits, at most one per
// column) best first: the ones that leave the mover the most cells
// completing a four, ties from the centre out. first, if among moves, goes
// before all (the transposition table's move).
func (p Position) ordered(moves uint64, first uint64, out *[Width]uint64) []uint64 {
	var score [Width]int
	n := 0
	for _, col := range centreOrder {
		m := moves & columnOf(col)
		if m == 0 {
			continue
		}
		s := bits.OnesCount64(threats(p.own|m, p.all|m))
		if m == first {
			s = 1 << 10
		}
		// insertion sort, stable so that equal scores keep centre order
		i := n
		for i > 0 && score[i-1] < s {
			out[i], score[i] = out[i-1], score[i-1]
			i--
		}
		out[i], score[i] = m, s
		n++
	}
	return out[:n]
}
