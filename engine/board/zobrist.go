package board

type zobristKeys struct {
	piece  [12][64]uint64
	castle [16]uint64
	epFile [8]uint64
	side   uint64
}

var zobrist = newZobrist()

// newZobrist draws the keys from a fixed splitmix64 stream so hashes, and
// with them the search under a node limit, are the same on every run.
func newZobrist() *zobristKeys {
	z := &zobristKeys{}
	state := uint64(0x76657370657221) // "vesper!"
	next := func() uint64 {
		state += 0x9e3779b97f4a7c15
		x := state
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
		x = (x ^ (x >> 27)) * 0x94d049bb133111eb
		return x ^ (x >> 31)
	}
	for i := range z.piece {
		for s := range z.piece[i] {
			z.piece[i][s] = next()
		}
	}
	for i := range z.castle {
		z.castle[i] = next()
	}
	for i := range z.epFile {
		z.epFile[i] = next()
	}
	z.side = next()
	return z
}

func (p *Position) computeKey() uint64 {
	var k uint64
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != Empty {
			k ^= zobrist.piece[pc][s]
		}
	}
	k ^= zobrist.castle[p.castle]
	if p.ep != NoSquare {
		k ^= zobrist.epFile[p.ep.File()]
	}
	if p.side == Black {
		k ^= zobrist.side
	}
	return k
}
