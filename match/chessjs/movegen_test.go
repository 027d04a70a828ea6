package chessjs

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/notnil/chess"
)

// The package's own move generator against notnil/chess, which generated
// the moves before it (sorted into chess.js's order) and still backs
// Game.Position: in every position of many random games the two must list
// the same moves in the same order with the same flags, agree on check,
// and the incremental hash and boards must equal those computed afresh.
// TestConformance checks the generator against chess.js itself.

// notnilLegal is the former legalMoves: notnil's ValidMoves, described in
// chess.js's terms and sorted by generationOrder.
func notnilLegal(pos *chess.Position, p *position) (ms []legalMove, checks []bool) {
	type tagged struct {
		m     legalMove
		check bool
		order uint16
	}
	var ts []tagged
	for _, nm := range pos.ValidMoves() {
		m := legalMove{from: int8(nm.S1()), to: int8(nm.S2())}
		m.piece = lower(p.board[m.from])
		m.promo = map[chess.PieceType]byte{chess.Queen: 'q', chess.Rook: 'r', chess.Bishop: 'b', chess.Knight: 'n'}[nm.Promo()]
		for tag, flag := range map[chess.MoveTag]uint8{
			chess.Capture:         flagCapture,
			chess.EnPassant:       flagEnPassant,
			chess.KingSideCastle:  flagCastleK,
			chess.QueenSideCastle: flagCastleQ,
		} {
			if nm.HasTag(tag) {
				m.flags |= flag
			}
		}
		if m.piece == 'p' && (m.to-m.from == 16 || m.from-m.to == 16) {
			m.flags |= flagBigPawn
		}
		ts = append(ts, tagged{m, nm.HasTag(chess.Check), generationOrder(&m, p.turn)})
	}
	slices.SortStableFunc(ts, func(a, b tagged) int { return int(a.order) - int(b.order) })
	for _, t := range ts {
		ms = append(ms, t.m)
		checks = append(checks, t.check)
	}
	return ms, checks
}

// generationOrder ranks m as chess.js generates it: by origin square from a8
// to h1; for a pawn the push (promotions n, b, r, q), the double push, then
// the captures in PAWN_OFFSETS order; for a piece by direction in
// PIECE_OFFSETS order, then distance; castling last, king side first.
func generationOrder(m *legalMove, us Color) uint16 {
	if m.flags&flagCastleK != 0 {
		return 0xff00
	}
	if m.flags&flagCastleQ != 0 {
		return 0xff01
	}
	ff, fr := int(m.from&7), int(m.from>>3)
	df, dr := int(m.to&7)-ff, int(m.to>>3)-fr
	sub := 0
	switch m.piece {
	case 'p':
		switch {
		case df == 0 && (dr == 1 || dr == -1):
			sub = 0
		case df == 0:
			sub = 1
		case (us == White) == (df < 0): // -17 for White, 17 for Black first
			sub = 2
		default:
			sub = 3
		}
	case 'n':
		sub = slices.Index(knightOffsets[:], -16*dr+df) * 8
	case 'k':
		sub = slices.Index(royalOffsets[:], -16*dr+df) * 8
	default:
		dir := -16*signOf(dr) + signOf(df)
		idx := slices.Index(royalOffsets[:], dir)
		switch m.piece {
		case 'b':
			idx = slices.Index(bishopOffsets[:], dir)
		case 'r':
			idx = slices.Index(rookOffsets[:], dir)
		}
		sub = idx*8 + max(df, -df, dr, -dr)
	}
	promo := map[byte]int{'b': 1, 'r': 2, 'q': 3}[m.promo]
	return uint16(x88(m.from)<<8 | sub<<2 | promo)
}

func signOf(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// checkAgainstNotnil compares p with pos, the notnil position reached by
// the same moves.
func checkAgainstNotnil(t *testing.T, p *position, pos *chess.Position) {
	t.Helper()
	fen := string(p.appendFEN(nil))
	want, checks := notnilLegal(pos, p)
	got := p.legalMoves()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: legal moves\n got %v\nwant %v", fen, got, want)
	}
	if p.hasLegalMove() != (len(want) > 0) {
		t.Fatalf("%s: hasLegalMove = %v with %d moves", fen, p.hasLegalMove(), len(want))
	}
	fresh := *p
	fresh.legal, fresh.legalOK = nil, false
	if fresh.hasLegalMove() != (len(want) > 0) {
		t.Fatalf("%s: hasLegalMove before legalMoves = %v with %d moves", fen, !(len(want) > 0), len(want))
	}
	for i := range got {
		if next := p.apply(&got[i]); next.check != checks[i] {
			t.Fatalf("%s: %s gives check %v, notnil says %v", fen, got[i].uci(), next.check, checks[i])
		}
	}
	if h := p.computeHash(); h != p.hash {
		t.Fatalf("%s: incremental hash %x, computed %x", fen, p.hash, h)
	}
	again := *p
	again.setBoard()
	if again.b88 != p.b88 || again.kings != p.kings {
		t.Fatalf("%s: 0x88 board or kings out of step with the board", fen)
	}
	if check := p.attacked(p.kingSquare(p.turn), p.turn.Other()); check != p.check {
		t.Fatalf("%s: check %v, the king is attacked: %v", fen, p.check, check)
	}
	built, err := p.notnil()
	if err != nil {
		t.Fatalf("%s: notnil: %v", fen, err)
	}
	if built.String() != pos.String() {
		t.Fatalf("%s: notnil position %s, the Update chain gives %s", fen, built, pos)
	}
}

func (m legalMove) uci() string {
	return Move{From: squareName(m.from), To: squareName(m.to), Promotion: m.promo}.UCI()
}

func (m legalMove) String() string { return fmt.Sprintf("%s/%02x", m.uci(), m.flags) }

func TestGeneratorAgainstNotnil(t *testing.T) {
	starts := append([]string{
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", // perft's "kiwipete"
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		"8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",    // en passant would open the rank
		"8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",     // the capture would expose the king
		"4k3/8/8/8/8/8/8/r3K2R w K - 0 1",      // castling through an attacked rank
		"3k4/8/8/8/8/8/3q4/R3K2R w KQ - 0 1",   // in check: no castling
		"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", // both sides castle
	}, fuzzPositions...)
	rng := rand.New(rand.NewPCG(16, 2026))
	games := 12
	if testing.Short() {
		games = 2
	}
	for _, fen := range starts {
		t.Run(fen, func(t *testing.T) {
			for range games {
				g, err := NewGameFromFEN(fen)
				if err != nil {
					t.Fatal(err)
				}
				pos := g.Position()
				for ply := 0; ply < 300; ply++ {
					checkAgainstNotnil(t, &g.cur, pos)
					legal := g.cur.legalMoves()
					if len(legal) == 0 {
						break
					}
					m := legal[rng.IntN(len(legal))]
					var nm *chess.Move
					for _, v := range pos.ValidMoves() {
						if int8(v.S1()) == m.from && int8(v.S2()) == m.to && legalMoveOf(v.Promo()) == m.promo {
							nm = v
						}
					}
					pos = pos.Update(nm)
					g.play(&m)
				}
			}
		})
	}
}

func legalMoveOf(pt chess.PieceType) byte {
	return map[chess.PieceType]byte{chess.Queen: 'q', chess.Rook: 'r', chess.Bishop: 'b', chess.Knight: 'n'}[pt]
}
