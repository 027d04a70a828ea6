package board

import "math/bits"

// Bitboard is a set of squares, bit i standing for square i (a1 = 0, h8 = 63).
type Bitboard uint64

// Square is 0..63 from a1 along ranks to h8; NoSquare marks its absence.
type Square uint8

// NoSquare is the absent square (no en-passant target).
const NoSquare Square = 64

// File is 0 (a) to 7 (h).
func (s Square) File() int { return int(s) & 7 }

// Rank is 0 (rank 1) to 7 (rank 8).
func (s Square) Rank() int { return int(s) >> 3 }

func (s Square) String() string {
	if s >= 64 {
		return "-"
	}
	return string([]byte{byte('a' + s.File()), byte('1' + s.Rank())})
}

// ParseSquare reads "a1".."h8" (lowercase only, as UCI and FEN write them).
func ParseSquare(s string) (Square, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return NoSquare, false
	}
	return Square(int(s[1]-'1')*8 + int(s[0]-'a')), true
}

func sq(file, rank int) Square { return Square(rank*8 + file) }

func (b Bitboard) count() int        { return bits.OnesCount64(uint64(b)) }
func (b Bitboard) lsb() Square       { return Square(bits.TrailingZeros64(uint64(b))) }
func (b Bitboard) has(s Square) bool { return b&(1<<s) != 0 }

// Count is the number of squares in the set.
func (b Bitboard) Count() int { return b.count() }

func bit(s Square) Bitboard { return 1 << s }

// popLSB removes and returns the lowest square of a non-empty set.
func popLSB(b *Bitboard) Square {
	s := b.lsb()
	*b &= *b - 1
	return s
}

const (
	fileA Bitboard = 0x0101010101010101
	fileH Bitboard = fileA << 7
	rank1 Bitboard = 0xff
	rank2 Bitboard = rank1 << 8
	rank3 Bitboard = rank1 << 16
	rank6 Bitboard = rank1 << 40
	rank7 Bitboard = rank1 << 48
	rank8 Bitboard = rank1 << 56
	// lightSquares are the squares where file+rank is odd (b1, a2, ..., h1).
	lightSquares Bitboard = 0x55aa55aa55aa55aa
)

// Ray directions. The first four grow in square index, so the nearest
// blocker on them is the lowest set bit; the others use the highest.
const (
	dirN = iota
	dirE
	dirNE
	dirNW
	dirS
	dirW
	dirSW
	dirSE
)

var dirDelta = [8][2]int{{0, 1}, {1, 0}, {1, 1}, {-1, 1}, {0, -1}, {-1, 0}, {-1, -1}, {1, -1}}

type attackTables struct {
	knight, king [64]Bitboard
	pawn         [2][64]Bitboard
	ray          [8][64]Bitboard
	between      [64][64]Bitboard // squares strictly between two aligned squares
	line         [64][64]Bitboard // the whole line through two aligned squares
	// file, diag and anti are the lines through a square without it.
	file, diag, anti [64]Bitboard
	// rank[f][inner] is the attack set within one rank (as a byte) of a
	// slider on file f, given the occupancy of files b..g.
	rank [8][64]uint8
}

var tables = newAttackTables()

func newAttackTables() *attackTables {
	t := &attackTables{}
	knightD := [][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}}
	kingD := [][2]int{{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}}
	for s := Square(0); s < 64; s++ {
		f, r := s.File(), s.Rank()
		t.knight[s] = leaper(f, r, knightD)
		t.king[s] = leaper(f, r, kingD)
		t.pawn[White][s] = leaper(f, r, [][2]int{{-1, 1}, {1, 1}})
		t.pawn[Black][s] = leaper(f, r, [][2]int{{-1, -1}, {1, -1}})
		for d, dd := range dirDelta {
			for ff, rr := f+dd[0], r+dd[1]; onBoard(ff, rr); ff, rr = ff+dd[0], rr+dd[1] {
				t.ray[d][s] |= bit(sq(ff, rr))
			}
		}
	}
	for s := Square(0); s < 64; s++ {
		t.file[s] = t.ray[dirN][s] | t.ray[dirS][s]
		t.diag[s] = t.ray[dirNE][s] | t.ray[dirSW][s]
		t.anti[s] = t.ray[dirNW][s] | t.ray[dirSE][s]
	}
	for f := 0; f < 8; f++ {
		for inner := 0; inner < 64; inner++ {
			t.rank[f][inner] = rankTableEntry(f, inner<<1)
		}
	}
	for a := Square(0); a < 64; a++ {
		for d := range dirDelta {
			for r := t.ray[d][a]; r != 0; {
				b := popLSB(&r)
				t.between[a][b] = t.ray[d][a] & t.ray[(d+4)%8][b]
				t.line[a][b] = t.ray[d][a] | t.ray[(d+4)%8][a] | bit(a)
			}
		}
	}
	return t
}

func onBoard(f, r int) bool { return f >= 0 && f < 8 && r >= 0 && r < 8 }

// leaper is the set of squares one of the jumps deltas away from (f, r).
func leaper(f, r int, deltas [][2]int) Bitboard {
	var b Bitboard
	for _, d := range deltas {
		if onBoard(f+d[0], r+d[1]) {
			b |= bit(sq(f+d[0], r+d[1]))
		}
	}
	return b
}

// rankTableEntry is the files a rook on file f attacks along its rank with
// the files in occ occupied, up to and including the first blocker each way.
func rankTableEntry(f, occ int) uint8 {
	var att uint8
	for x := f + 1; x < 8; x++ {
		att |= 1 << x
		if occ&(1<<x) != 0 {
			break
		}
	}
	for x := f - 1; x >= 0; x-- {
		att |= 1 << x
		if occ&(1<<x) != 0 {
			break
		}
	}
	return att
}

// Sliding attacks use hyperbola quintessence: along a file or diagonal,
// o-2s sets the squares up to and including the first blocker above s, and
// the same on the byte-reversed board gives those below. Ranks, where byte
// reversal does not mirror, use a small table indexed by the inner six
// squares of the rank.
func lineAttacks(s Square, occ, mask Bitboard) Bitboard {
	o := uint64(occ & mask)
	b := uint64(1) << s
	r := bits.ReverseBytes64(o)
	forward := o - 2*b
	reverse := r - 2*bits.ReverseBytes64(b)
	return Bitboard(forward^bits.ReverseBytes64(reverse)) & mask
}

func rankAttacks(s Square, occ Bitboard) Bitboard {
	shift := uint(s) &^ 7
	inner := (uint64(occ) >> (shift + 1)) & 63
	return Bitboard(tables.rank[s&7][inner]) << shift
}

func rookAttacks(s Square, occ Bitboard) Bitboard {
	return lineAttacks(s, occ, tables.file[s]) | rankAttacks(s, occ)
}

func bishopAttacks(s Square, occ Bitboard) Bitboard {
	return lineAttacks(s, occ, tables.diag[s]) | lineAttacks(s, occ, tables.anti[s])
}

// KnightAttacks is the set of squares a knight on s attacks.
func KnightAttacks(s Square) Bitboard { return tables.knight[s] }

// KingAttacks is the set of squares a king on s attacks.
func KingAttacks(s Square) Bitboard { return tables.king[s] }

// BishopAttacks is the set of squares a bishop on s attacks given occupancy occ.
func BishopAttacks(s Square, occ Bitboard) Bitboard { return bishopAttacks(s, occ) }

// RookAttacks is the set of squares a rook on s attacks given occupancy occ.
func RookAttacks(s Square, occ Bitboard) Bitboard { return rookAttacks(s, occ) }

// PawnAttacks is the set of squares attacked by c's pawns in b.
func PawnAttacks(c Color, b Bitboard) Bitboard {
	if c == White {
		return (b&^fileA)<<7 | (b&^fileH)<<9
	}
	return (b&^fileA)>>9 | (b&^fileH)>>7
}

// Has reports whether s is in the set.
func (b Bitboard) Has(s Square) bool { return b.has(s) }

// PopLSB removes and returns the lowest square of a non-empty set.
func (b *Bitboard) PopLSB() Square { return popLSB(b) }

// LSB is the lowest square of a non-empty set.
func (b Bitboard) LSB() Square { return b.lsb() }

// FileMask is the set of squares on file f (0 = a).
func FileMask(f int) Bitboard { return fileA << f }
