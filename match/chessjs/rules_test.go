package chessjs

import (
	"errors"
	"testing"
)

// Each test here checks one rule of PROTOCOL.md section 4 ("Chess rules:
// exactly chess.js 1.4.0"). Expectations were read off chess.js 1.4.0
// itself; TestConformance checks many more against it directly.

func mustFEN(t *testing.T, fen string) *Game {
	t.Helper()
	g, err := NewGameFromFEN(fen)
	if err != nil {
		t.Fatalf("NewGameFromFEN(%q): %v", fen, err)
	}
	return g
}

func play(t *testing.T, g *Game, moves ...string) {
	t.Helper()
	for _, s := range moves {
		if _, err := g.Move(s); err != nil {
			t.Fatalf("Move(%q) after %d plies: %v", s, g.Plies(), err)
		}
	}
}

type parseCase struct {
	fen, in, uci, san string // uci "" when refused
}

func checkParses(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			g := mustFEN(t, c.fen)
			m, err := g.Parse(c.in)
			if c.uci == "" {
				if !errors.Is(err, ErrIllegalMove) {
					t.Fatalf("Parse(%q) = %+v, %v; want ErrIllegalMove", c.in, m, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v; want %s", c.in, err, c.uci)
			}
			if m.UCI() != c.uci || m.SAN != c.san {
				t.Fatalf("Parse(%q) = %s %s, want %s %s", c.in, m.UCI(), m.SAN, c.uci, c.san)
			}
		})
	}
}

const (
	castlingFEN  = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
	promotionFEN = "k7/2P5/1K6/8/8/8/8/8 w - - 0 1"
)

// Section 4: `Pe2-e4`, `e2-e4`, `Ng1f3`, `0-0`, `O-O+` and `e4!!` are accepted.
func TestSection4PermissiveSpellingsAccepted(t *testing.T) {
	checkParses(t, []parseCase{
		{StartFEN, "Pe2-e4", "e2e4", "e4"},
		{StartFEN, "e2-e4", "e2e4", "e4"},
		{StartFEN, "Ng1f3", "g1f3", "Nf3"},
		{StartFEN, "ng1f3", "g1f3", "Nf3"}, // the regex's piece group takes either case
		{StartFEN, "pe2e4", "e2e4", "e4"},
		{StartFEN, "b1c3", "b1c3", "Nc3"},
		{StartFEN, "e4!!", "e2e4", "e4"},
		{StartFEN, "e4+!", "e2e4", "e4"},
		{StartFEN, "Nf3+", "g1f3", "Nf3"},
		{StartFEN, "e4=", "e2e4", "e4"}, // the first '=' is dropped
		{StartFEN, "e=4", "e2e4", "e4"},
		{castlingFEN, "0-0", "e1g1", "O-O"},
		{castlingFEN, "0-0+", "e1g1", "O-O"},
		{castlingFEN, "O-O+", "e1g1", "O-O"},
		{castlingFEN, "0-0-0", "e1c1", "O-O-O"},
		{castlingFEN, "O=-O", "e1g1", "O-O"},
		{castlingFEN, "e1g1", "e1g1", "O-O"},
		{castlingFEN, "Ke1g1", "e1g1", "O-O"},
		{"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "ed6", "e5d6", "exd6"},
		{"4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "Ke2", "e1e2", "Kxe2"}, // a capture without its x
	})
}

// Section 4: ` e4`, `E4`, `nf3`, `o-o` and `e8q` are rejected.
func TestSection4OddSpellingsRejected(t *testing.T) {
	checkParses(t, []parseCase{
		{StartFEN, " e4", "", ""},
		{StartFEN, "E4", "", ""},
		{StartFEN, "nf3", "", ""},
		{StartFEN, "Pe4", "", ""},
		{StartFEN, "xe2e4", "", ""}, // 'x' first filters every piece out
		{StartFEN, "bb1c3", "", ""}, // 'b' read as a bishop
		{StartFEN, "Nf3++", "", ""}, // only one '+' is stripped
		{StartFEN, "e4!+", "", ""},
		{StartFEN, "e2\ne4", "", ""},
		{StartFEN, "Nf", "", ""},
		{StartFEN, "", "", ""},
		{StartFEN, "- -", "", ""},
		{StartFEN, "\u212ae1e2", "", ""}, // the Kelvin sign lower-cases to a king
		{castlingFEN, "o-o", "", ""},
		{castlingFEN, "OO", "", ""},
		{castlingFEN, "O-0", "", ""},
		{castlingFEN, "Kg1", "", ""},
		{promotionFEN, "c8q", "", ""},
		{promotionFEN, "c8=q", "", ""},
		{promotionFEN, "c8", "", ""},
		{"4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "d6", "", ""},
	})
}

// Section 4: a coordinate promotion without a piece (`e7e8`) promotes to a
// knight, the first promotion chess.js generates.
func TestSection4CoordinatePromotionIsKnight(t *testing.T) {
	checkParses(t, []parseCase{
		{promotionFEN, "c7c8", "c7c8n", "c8=N"},
		{promotionFEN, "c7c8q", "c7c8q", "c8=Q#"},
		{promotionFEN, "c7c8Q", "c7c8q", "c8=Q#"},
		{promotionFEN, "c8=Q", "c7c8q", "c8=Q#"},
		{promotionFEN, "c8Q", "c7c8q", "c8=Q#"},
		{promotionFEN, "c7-c8=R", "c7c8r", "c8=R#"},
		{promotionFEN, "Pc7c8b", "c7c8b", "c8=B"},
		{"4k3/8/8/8/8/8/6p1/4K2R b K - 0 1", "g2h1", "g2h1n", "gxh1=N"},
	})
}

// Section 4: the parser's pattern is not anchored, so `e2e4 please` is
// accepted.
func TestSection4PatternNotAnchored(t *testing.T) {
	checkParses(t, []parseCase{
		{StartFEN, "e2e4 please", "e2e4", "e4"},
		{StartFEN, "please e2e4", "e2e4", "e4"}, // 'p' first: pawns only, and e2e4 is one
		{StartFEN, "e2e4e5", "e2e4", "e4"},
	})
}

// Section 4: any string chess.js parses as the null move is never legal.
func TestSection4NullMoveRefused(t *testing.T) {
	for _, fen := range []string{StartFEN, "4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"} {
		for _, s := range []string{"--", "--+", "-=-", "=--", "--=", "--#", "--!!", "--+?"} {
			g := mustFEN(t, fen)
			_, err := g.Move(s)
			var me *MoveError
			if !errors.Is(err, ErrNullMove) || !errors.As(err, &me) || me.Input != s {
				t.Errorf("%s: Move(%q) error = %v, want a *MoveError wrapping ErrNullMove", fen, s, err)
			}
			if g.Plies() != 0 || g.FEN() != fen {
				t.Errorf("%s: Move(%q) changed the game", fen, s)
			}
		}
	}
}

func wantOutcome(t *testing.T, g *Game, want Outcome) {
	t.Helper()
	if got := g.Outcome(); got != want {
		t.Fatalf("after %d plies (%s): Outcome() = %+v, want %+v", g.Plies(), g.FEN(), got, want)
	}
}

var (
	notOver = Outcome{}
	drawBy  = func(reason string) Outcome { return Outcome{Over: true, Draw: true, Reason: reason} }
)

func TestSection4Checkmate(t *testing.T) {
	g := NewGame()
	play(t, g, "f2f3", "e7e5", "g2g4")
	m, err := g.Move("d8h4")
	if err != nil || m.SAN != "Qh4#" {
		t.Fatalf("d8h4 = %+v, %v; want Qh4#", m, err)
	}
	wantOutcome(t, g, Outcome{Over: true, Winner: Black, Reason: ReasonCheckmate})
}

func TestSection4Stalemate(t *testing.T) {
	g := mustFEN(t, "k7/8/1Q6/8/8/8/8/6K1 w - - 0 1")
	play(t, g, "Qc7")
	wantOutcome(t, g, drawBy(ReasonStalemate))
}

// Section 4: the start position counts once; every position after a move
// counts.
func TestSection4ThreefoldStartCountsOnce(t *testing.T) {
	g := NewGame()
	shuffle := []string{"Nf3", "Nf6", "Ng1", "Ng8"}
	play(t, g, shuffle...)
	play(t, g, shuffle[:3]...)
	wantOutcome(t, g, notOver)
	play(t, g, shuffle[3])
	wantOutcome(t, g, drawBy(ReasonThreefoldRepetition))
	play(t, g, "Nc3")
	wantOutcome(t, g, notOver)
}

// Section 4: the hash includes the en-passant square whenever an enemy pawn
// stands beside the pawn that just moved two squares, even when the capture
// is illegal; and not otherwise.
func TestSection4RepetitionHashesEnPassant(t *testing.T) {
	white := []string{"Nf3", "Nf6", "Ng1", "Ng8"}
	black := []string{"Nf6", "Nf3", "Ng8", "Ng1"}
	cases := []struct {
		name, fen, push string
		shuffle         []string
		over            int // ply at which threefold first holds
	}{
		// After c5 the position (white to move) has an en-passant key, so the
		// same placement after Ng8 is a different position: it repeats only
		// twice more by ply 9, and the Nf3 position makes it at ply 10.
		{"legal capture", "4k1n1/2p5/8/1P6/8/8/8/4K1N1 b - - 0 1", "c5", white, 10},
		{"pinned capture", "4k1n1/2p5/8/KP5r/8/8/8/6N1 b - - 0 1", "c5", white, 10},
		// No pawn beside e4: no key, and the position after e4 repeats at ply 9.
		{"no capturer", StartFEN, "e4", black, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustFEN(t, c.fen)
			play(t, g, c.push)
			for g.Plies() < c.over-1 {
				if g.Outcome().Over {
					t.Fatalf("over at ply %d, want %d", g.Plies(), c.over)
				}
				play(t, g, c.shuffle[(g.Plies()-1)%4])
			}
			wantOutcome(t, g, notOver)
			play(t, g, c.shuffle[(g.Plies()-1)%4])
			wantOutcome(t, g, drawBy(ReasonThreefoldRepetition))
		})
	}
}

// Section 4: fifty-move rule at half-move clock >= 100, no claim needed.
func TestSection4FiftyMoveRule(t *testing.T) {
	g := mustFEN(t, "3k4/8/8/8/8/8/4R3/4K3 w - - 98 80")
	play(t, g, "Ra2")
	wantOutcome(t, g, notOver)
	play(t, g, "Kd7")
	wantOutcome(t, g, drawBy(ReasonFiftyMoveRule))

	for _, c := range []struct{ fen, move string }{
		{"3k4/8/8/8/8/8/r3R3/4K3 w - - 99 80", "Rxa2"},
		{"3k4/p7/8/8/8/8/4R3/4K3 b - - 99 80", "a5"},
	} {
		g := mustFEN(t, c.fen)
		play(t, g, c.move)
		wantOutcome(t, g, notOver)
		if got := g.FEN(); got[len(got)-5:] != " 0 80" && got[len(got)-5:] != " 0 81" {
			t.Errorf("%s then %s: FEN %s, want the clock reset", c.fen, c.move, got)
		}
	}
	wantOutcome(t, mustFEN(t, "3k4/8/8/8/8/8/4R3/4K3 w - - 150 80"), drawBy(ReasonFiftyMoveRule))
}

// Section 1: when one move meets several end conditions the reason is the
// first of checkmate, stalemate, threefold_repetition, fifty_move_rule,
// insufficient_material.
func TestSection4EndReasonOrder(t *testing.T) {
	g := mustFEN(t, "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80")
	play(t, g, "Ra8#")
	wantOutcome(t, g, Outcome{Over: true, Winner: White, Reason: ReasonCheckmate})

	g = mustFEN(t, "k7/8/1Q6/8/8/8/8/6K1 w - - 99 80")
	play(t, g, "Qc7")
	wantOutcome(t, g, drawBy(ReasonStalemate))

	g = mustFEN(t, "4k3/8/8/8/8/8/8/R3K3 w - - 92 80")
	play(t, g, "Ra2", "Kd7", "Ra1", "Ke8", "Ra2", "Kd7", "Ra1", "Ke8")
	wantOutcome(t, g, drawBy(ReasonThreefoldRepetition))

	g = mustFEN(t, "8/8/8/8/8/8/8/K1k5 w - - 100 80")
	wantOutcome(t, g, drawBy(ReasonFiftyMoveRule))
}

// Section 4: insufficient material is K v K, K plus one bishop or knight v K,
// and bishops only, any number, all on one colour.
func TestSection4InsufficientMaterial(t *testing.T) {
	cases := []struct {
		name, fen string
		want      bool
	}{
		{"K v K", "8/8/8/4k3/8/8/8/4K3 w - - 0 1", true},
		{"KB v K", "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1", true},
		{"K v KB", "8/8/8/4k3/8/8/8/2b1K3 w - - 0 1", true},
		{"KN v K", "8/8/8/4k3/8/8/8/1N2K3 b - - 0 1", true},
		{"K v KN", "8/8/8/4k3/8/8/8/1n2K3 w - - 0 1", true},
		{"KB v KB same colour", "8/8/8/4k3/8/4b3/8/2B1K3 w - - 0 1", true},
		{"KBB v K same colour", "8/8/8/4k3/8/8/3B4/2B1K3 w - - 0 1", true},
		{"KBBB v KB one colour", "k7/8/8/8/5b2/B7/1B6/2B1K3 w - - 0 1", true},
		{"KB v KB opposite colours", "8/8/8/4k3/4b3/8/8/2B1K3 w - - 0 1", false},
		{"KBB v K opposite colours", "8/8/8/4k3/8/8/8/2BBK3 w - - 0 1", false},
		{"KNN v K", "8/8/8/4k3/8/8/8/1N1NK3 w - - 0 1", false},
		{"KN v KN", "8/8/8/4k3/5n2/8/8/1N2K3 w - - 0 1", false},
		{"KB v KN", "8/8/8/4k3/5n2/8/8/2B1K3 w - - 0 1", false},
		{"KBN v K", "8/8/8/4k3/8/8/8/1NB1K3 w - - 0 1", false},
		{"KP v K", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1", false},
		{"KR v K", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := notOver
			if c.want {
				want = drawBy(ReasonInsufficientMaterial)
			}
			wantOutcome(t, mustFEN(t, c.fen), want)
		})
	}
	g := mustFEN(t, "8/8/8/8/8/8/1r6/K1B1k3 w - - 0 1")
	wantOutcome(t, g, notOver)
	play(t, g, "Kxb2")
	wantOutcome(t, g, drawBy(ReasonInsufficientMaterial))
}

// Section 4: FEN in final_hash prints the en-passant square only when an
// en-passant capture is actually legal.
func TestSection4FENEnPassantOnlyWhenLegal(t *testing.T) {
	cases := []struct{ fen, push, want string }{
		{"4k3/2p5/8/1P6/8/8/8/4K3 b - - 0 1", "c5", "4k3/8/8/1Pp5/8/8/8/4K3 w - c6 0 2"},
		{"8/2p5/8/KP5r/8/8/8/4k3 b - - 0 1", "c5", "8/8/8/KPp4r/8/8/8/4k3 w - - 0 2"}, // pinned on the rank
		{StartFEN, "e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"},
	}
	for _, c := range cases {
		g := mustFEN(t, c.fen)
		play(t, g, c.push)
		if got := g.FEN(); got != c.want {
			t.Errorf("%s then %s: FEN %q, want %q", c.fen, c.push, got, c.want)
		}
	}
}

func TestNewGameFromFENRefusesInvalid(t *testing.T) {
	for _, fen := range []string{
		"",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1",
		"4k3/8/8/8/8/8/8/4K3 w K - 0 1",                                      // a right without its rook
		"4k3/8/8/8/8/8/8/4K3 w - e6 0 1",                                     // no pawn moved past e6
		"4k3/8/8/8/8/8/4R3/4K3 b - - 0 1 extra",                              // seven fields
		"4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",                                    // the side not to move in check
		"P3k3/8/8/8/8/8/8/4K3 w - - 0 1",                                     // a pawn on the last rank
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999", // counter out of range
	} {
		if g, err := NewGameFromFEN(fen); err == nil {
			t.Errorf("NewGameFromFEN(%q) = %s, want an error", fen, g.FEN())
		} else if _, ok := err.(*FENError); !ok {
			t.Errorf("NewGameFromFEN(%q) error %T, want *FENError", fen, err)
		}
	}
	// chess.js fills in missing trailing fields.
	g := mustFEN(t, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
	if got, want := g.FEN(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"; got != want {
		t.Errorf("FEN() = %q, want %q", got, want)
	}
}

func TestGameAccessors(t *testing.T) {
	g := NewGame()
	if got := len(g.LegalMoves()); got != 20 {
		t.Errorf("LegalMoves at the start: %d, want 20", got)
	}
	if g.Turn() != White || g.InCheck() || g.Plies() != 0 || g.FEN() != StartFEN {
		t.Errorf("start: turn %v check %v plies %d fen %s", g.Turn(), g.InCheck(), g.Plies(), g.FEN())
	}
	play(t, g, "e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6")
	m, err := g.Move("Qxf7")
	if err != nil || m.SAN != "Qxf7#" || m.UCI() != "h5f7" {
		t.Fatalf("Qxf7 = %+v, %v", m, err)
	}
	if !g.InCheck() || g.Turn() != Black || g.Plies() != 7 {
		t.Errorf("after mate: check %v turn %v plies %d", g.InCheck(), g.Turn(), g.Plies())
	}
	h := g.History()
	if len(h) != 7 || h[0].SAN != "e4" || h[6].SAN != "Qxf7#" {
		t.Errorf("History() = %+v", h)
	}
	if g.Position().Turn().String() != "b" {
		t.Errorf("Position().Turn() = %v", g.Position().Turn())
	}
	if len(g.LegalMoves()) != 0 {
		t.Errorf("moves after mate: %v", g.LegalMoves())
	}
}

func TestCloneIsIndependent(t *testing.T) {
	g := NewGame()
	play(t, g, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
	c := g.Clone()
	play(t, c, "Ng8")
	wantOutcome(t, c, drawBy(ReasonThreefoldRepetition))
	wantOutcome(t, g, notOver)
	play(t, g, "e5")
	if g.Plies() != 8 || c.Plies() != 8 || g.FEN() == c.FEN() {
		t.Fatalf("clone shares state: %s / %s", g.FEN(), c.FEN())
	}
	if g.History()[7].SAN != "e5" || c.History()[7].SAN != "Ng8" {
		t.Fatalf("histories: %v / %v", g.History()[7], c.History()[7])
	}
	c2 := c.Clone()
	play(t, c2, "Nc3")
	play(t, c, "Nf3")
	if c.History()[8].SAN != "Nf3" || c2.History()[8].SAN != "Nc3" {
		t.Fatalf("clone of a clone shares history: %v / %v", c.History()[8], c2.History()[8])
	}
}

func TestMoveUCI(t *testing.T) {
	for _, c := range []struct {
		m    Move
		want string
	}{
		{Move{From: "e2", To: "e4"}, "e2e4"},
		{Move{From: "e7", To: "e8", Promotion: 'q'}, "e7e8q"},
	} {
		if got := c.m.UCI(); got != c.want {
			t.Errorf("%+v.UCI() = %q, want %q", c.m, got, c.want)
		}
	}
}
