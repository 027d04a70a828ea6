package site

import (
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"vesper/internal/browser"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/nostr"
)

// replaySAN is a chess game with every way a move changes the board: an en
// passant capture (3. exf6), a promotion by capture (5. gxh8=Q), castling
// on both wings, a check (13. Nxa7+), and pieces returning to a square
// they stood on.
var replaySAN = strings.Fields("e4 d5 e5 f5 exf6 Nc6 fxg7 Nf6 gxh8=Q Bg4 Nf3 Qd7 Be2 O-O-O O-O Re8 Ng5 Rd8 Nf3 Re8 Nd4 Rd8 Nb5 e5 Nxa7+")

// The one board of the replay (issue 37) shows, at every ply a reader
// targets and with no ply targeted, exactly the pieces of that position
// (the chess game above, by the FEN chessjs gives; a gomoku game, by
// count), its marks on the last move's squares, and the move list marks
// that ply's move and no other: checked in headless Chromium, as the CSS
// decides it.
func TestBrowserReplayBoardShowsEachPosition(t *testing.T) {
	bin := browser.Chromium(t)
	chess := testkit.NewMatch(alice, bob, nostr.GameChess, "", t0)
	chess.Accept(t0 + 10)
	chess.Play(replaySAN, t0+20, 10)
	points := strings.Fields("h8 h9 g8 g9 f8 f9 e8 e9 d8")
	gomoku := testkit.NewMatch(alice, carol, nostr.GameGomoku, "", t0)
	gomoku.Accept(t0 + 10)
	gomoku.Play(points, t0+20, 10)
	in := Input{States: []*match.State{foldT(t, chess), foldT(t, gomoku)}, Now: t0 + 86400, ListAll: true}
	out, _ := buildFixture(t, in)
	srv := httptest.NewServer(staticFiles(out))
	defer srv.Close()
	br := browser.Start(t, bin)

	// Positions by the rules: placement per ply, and each move's squares.
	g := chessjs.NewGame()
	placements := []string{placementOf(g.FEN())}
	var squares [][2]string
	for _, san := range replaySAN {
		m, err := g.Move(san)
		if err != nil {
			t.Fatalf("%s: %v", san, err)
		}
		placements = append(placements, placementOf(g.FEN()))
		squares = append(squares, [2]string{m.From, m.To})
	}
	// shown lists the board's pieces a reader sees ("wk g1"), sorted, and
	// where the marks are ("e2 e4"; "-" when hidden).
	const shown = `(() => {
  const bd = document.querySelector(".steps svg.bd"), files = "abcdefgh", seen = [];
  for (const u of bd.querySelectorAll("use")) {
    const href = u.getAttribute("href");
    if (href === "#cb" || href === "#gb" || getComputedStyle(u).opacity !== "1") continue;
    const x = +u.getAttribute("x"), y = +u.getAttribute("y");
    seen.push(href.slice(1) + " " + (href.length === 3 ? files[x] + (8 - y) : x + "," + y));
  }
  const marks = [...bd.querySelectorAll(".m1, .m2")].map(m => {
    const t = new DOMMatrix(getComputedStyle(m).transform);
    return files[t.e] + (8 - t.f);
  });
  const hidden = getComputedStyle(bd.querySelector(".mk")).opacity === "0";
  const lit = [...document.querySelectorAll(".moves a")].filter(a => {
    const st = getComputedStyle(a);
    return st.fontWeight === "700" && st.backgroundColor !== "rgba(0, 0, 0, 0)";
  }).map(a => a.getAttribute("href"));
  return {pieces: seen.sort().join(" "), marks: hidden ? "-" : marks.join(" "), boards: bd.getClientRects().length, lit: lit.join(" ")};
})()`
	type view struct {
		Pieces, Marks string
		Boards        int
		// Lit is the move list's marked move (its link), the one whose
		// position the board shows: none at the start.
		Lit string
	}
	page := srv.URL + "/m/" + chess.ID + ".html"
	br.Open(t, page, 1280)
	check := func(ply int, got view) {
		t.Helper()
		want := view{Pieces: placements[ply], Marks: "-", Boards: 1}
		if ply > 0 {
			want.Marks = squares[ply-1][0] + " " + squares[ply-1][1]
			want.Lit = "#ply-" + strconv.Itoa(ply)
		}
		if got != want {
			t.Errorf("chess ply %d: the board shows\n %+v\nwant\n %+v", ply, got, want)
		}
	}
	var v view
	br.Eval(t, shown, &v)
	check(len(replaySAN), v) // no ply targeted: the last position
	for ply := range placements {
		br.Eval(t, `location.hash = "#ply-`+strconv.Itoa(ply)+`"`, nil)
		br.Eval(t, shown, &v)
		check(ply, v)
	}

	br.Open(t, srv.URL+"/m/"+gomoku.ID+".html", 390)
	for ply := range len(points) + 1 {
		br.Eval(t, `location.hash = "#ply-`+strconv.Itoa(ply)+`"`, nil)
		br.Eval(t, shown, &v)
		if n := len(strings.Fields(v.Pieces)) / 2; n != ply || v.Boards != 1 {
			t.Errorf("gomoku ply %d: %d stones shown on %d boards: %s", ply, n, v.Boards, v.Pieces)
		}
		if lit := "#ply-" + strconv.Itoa(ply); ply > 0 && v.Lit != lit || ply == 0 && v.Lit != "" {
			t.Errorf("gomoku ply %d: the move list marks %q", ply, v.Lit)
		}
	}
}

// placementOf lists a FEN's pieces as the browser check does ("wk g1"),
// sorted.
func placementOf(fen string) string {
	b := parseFEN(fen)
	var out []string
	for sq, c := range b.sq {
		if c == 0 {
			continue
		}
		side, p := "b", string(c)
		if c < 'a' {
			side, p = "w", strings.ToLower(p)
		}
		out = append(out, side+p+" "+string(rune('a'+sq%8))+strconv.Itoa(sq/8+1))
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}
