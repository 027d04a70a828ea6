package board

// Perft counts the leaf nodes of the legal move tree to depth, the
// standard check of a move generator against published counts.
func Perft(p *Position, depth int) int64 {
	if depth <= 0 {
		return 1
	}
	var ml MoveList
	p.GenerateMoves(&ml)
	ci := p.CheckInfo()
	var n int64
	for _, m := range ml.Slice() {
		if !p.IsLegalWith(&ci, m) {
			continue
		}
		if depth == 1 {
			n++
			continue
		}
		q := p.Play(m)
		n += Perft(&q, depth-1)
	}
	return n
}

// Divide is Perft split by root move (UCI string to count), for finding
// where two generators disagree.
func Divide(p *Position, depth int) map[string]int64 {
	out := map[string]int64{}
	for _, m := range p.LegalMoves() {
		q := p.Play(m)
		out[m.UCI()] = Perft(&q, depth-1)
	}
	return out
}
