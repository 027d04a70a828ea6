//go:build ignore

// gen writes the Connect Four conformance set (PROTOCOL.md revision 4,
// section 5.1) beside it: one match.json per scenario, every event signed
// for real, the events shuffled and one duplicated, and a summary that is
// written down here by hand from the protocol's text, not computed by the
// fold: each event says whether the fold must use it, and each scenario
// states its status, result, reason and counted moves. Only final_hash
// (sha256 of "connect4:" + the expected moves) and the order of the
// ignored ids (fold order: created_at, then id) are derived, from the
// text's definitions. Run from the repository's root:
//
//	go run ./match/testdata/connect4/gen.go
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"vesper/internal/testkit"
	"vesper/nostr"
)

const t0 = int64(1_765_000_000)

var (
	red    = testkit.Key("c4-red")
	yellow = testkit.Key("c4-yellow")
	carol  = testkit.Key("c4-carol")
)

// ev is one event of a scenario. ign is why the fold must ignore it (""
// when it must use it); final marks the event that makes the result final.
type ev struct {
	key   nostr.SecretKey
	build func(id string) *nostr.Event
	ign   string
	final bool
	seen  int64 // seen_at, 0 for its created_at
}

type scenario struct {
	file, what string
	game       string // the challenge's content
	evs        []ev
	noMatch    string // the error when the challenge is no match
	status     string
	result     any // "first", "second", "draw" or nil
	reason     any
	moves      []string
	finalBy    any
}

func hash(moves ...string) string {
	h := sha256.Sum256([]byte("connect4:" + strings.Join(moves, ",")))
	return hex.EncodeToString(h[:])
}

func cols(s string) []string { return strings.Split(s, "") }

func acc(t int64) ev {
	return ev{key: yellow, build: func(id string) *nostr.Event { return nostr.NewAccept(id, red.PublicKey(), t) }}
}

func mv(k nostr.SecretKey, ply int, move string, t int64, ign string) ev {
	return ev{key: k, ign: ign, build: func(id string) *nostr.Event { return nostr.NewMove(id, ply, move, t) }}
}

func res(k nostr.SecretKey, r nostr.Result, t int64, ign string) ev {
	return ev{key: k, ign: ign, build: func(id string) *nostr.Event { return nostr.NewResult(id, r, t) }}
}

// play lists the moves of a game from ply 1, Red first, one every 10 s
// from t; uppercase letters are sent as they are.
func play(moves []string, t int64) []ev {
	var out []ev
	for i, m := range moves {
		k := red
		if i%2 == 1 {
			k = yellow
		}
		out = append(out, mv(k, i+1, m, t+int64(i)*10, ""))
	}
	return out
}

func after(moves []string, t int64) int64 { return t + int64(len(moves)-1)*10 }

func lower(ms []string) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = strings.ToLower(m)
	}
	return out
}

func sig(k nostr.SecretKey, result, reason string, moves []string, t int64, ign string) ev {
	return res(k, nostr.Result{Result: result, Reason: reason, Plies: len(moves), FinalHash: hash(moves...)}, t, ign)
}

func scenarios() []scenario {
	var out []scenario
	s0 := t0 + 100

	// 1. A row for Red, columns in both cases, signed by both.
	g1 := cols("aAbBcCd")
	e1 := append([]ev{acc(t0 + 60)}, play(g1, s0)...)
	end := after(g1, s0)
	e1 = append(e1, sig(red, "first", "four_in_a_row", lower(g1), end+5, ""),
		ev(sig(yellow, "first", "four_in_a_row", lower(g1), end+6, "")))
	e1[len(e1)-1].final = true
	out = append(out, scenario{file: "c4-0001.json", what: "four_in_a_row:horizontal,uppercase,final:signatures",
		evs: e1, status: "over", result: "first", reason: "four_in_a_row", moves: lower(g1), finalBy: "signatures"})

	// 2. A column for Yellow; a move after the end by each player; the
	// result made final by a ruling after Yellow's request past the
	// deadline (the end + 86400).
	g2 := cols("abababgb")
	e2 := append([]ev{acc(t0 + 60)}, play(g2, s0)...)
	end2 := after(g2, s0) // the closures below keep their own copy
	end = end2
	e2 = append(e2,
		mv(red, 9, "c", end+3, "game_over"),
		mv(yellow, 9, "c", end+4, "game_over"),
		sig(yellow, "second", "four_in_a_row", g2, end+5, ""),
		ev{key: yellow, build: func(id string) *nostr.Event { return nostr.NewRequest(id, "", end2+86401) }},
		ev{key: carol, final: true, build: func(id string) *nostr.Event {
			return nostr.NewRuling(id, nostr.Result{Result: "second", Reason: "four_in_a_row", Plies: len(g2), FinalHash: hash(g2...)}, end2+86402)
		}})
	out = append(out, scenario{file: "c4-0002.json", what: "four_in_a_row:vertical,after_over,final:ruling",
		evs: e2, status: "over", result: "second", reason: "four_in_a_row", moves: g2, finalBy: "ruling"})

	// 3. A diagonal for Red, with strings that are not columns sent at
	// ply 2 before Yellow's column; one signature only: over, not final.
	g3 := cols("abbccdcddgd")
	e3 := append([]ev{acc(t0 + 60)}, play(g3, s0)...)
	for i, bad := range []string{"h", "aa", "1", "", " a", "b ", "B1", "resign ", "ａ"} {
		e3 = append(e3, mv(yellow, 2, bad, s0+1+int64(i)%9, "illegal"))
	}
	end = after(g3, s0)
	e3 = append(e3, sig(red, "first", "four_in_a_row", g3, end+5, ""))
	out = append(out, scenario{file: "c4-0003.json", what: "four_in_a_row:diagonal,not_a_column,final:none",
		evs: e3, status: "over", result: "first", reason: "four_in_a_row", moves: g3, finalBy: nil})

	// 4. An anti-diagonal for Red; the signatures hash the moves as sent
	// (uppercase) or count a wrong number of plies, and are inconsistent;
	// then both sign right.
	g4 := cols("GFfEeDeDdAd")
	e4 := append([]ev{acc(t0 + 60)}, play(g4, s0)...)
	end = after(g4, s0)
	e4 = append(e4,
		res(red, nostr.Result{Result: "first", Reason: "four_in_a_row", Plies: len(g4), FinalHash: hash(g4...)}, end+1, "inconsistent"),
		res(yellow, nostr.Result{Result: "first", Reason: "four_in_a_row", Plies: len(g4) - 1, FinalHash: hash(lower(g4)...)}, end+2, "inconsistent"),
		sig(yellow, "second", "four_in_a_row", lower(g4), end+3, "inconsistent"),
		sig(red, "first", "four_in_a_row", lower(g4), end+4, ""),
		sig(yellow, "first", "anything", lower(g4), end+5, ""))
	e4[len(e4)-1].final = true
	out = append(out, scenario{file: "c4-0004.json", what: "four_in_a_row:anti_diagonal,uppercase,hash_of_normalized_moves",
		evs: e4, status: "over", result: "first", reason: "four_in_a_row", moves: lower(g4), finalBy: "signatures"})

	// 5. A full column: d holds six discs (colours alternate, no line),
	// then d and D are illegal; the game goes on.
	g5 := cols("dDdDdd")
	e5 := append([]ev{acc(t0 + 60)}, play(g5, s0)...)
	end = after(g5, s0)
	e5 = append(e5, mv(red, 7, "d", end+1, "illegal"), mv(red, 7, "D", end+2, "illegal"),
		mv(red, 7, "e", end+3, ""), mv(yellow, 8, "d", end+4, "illegal"), mv(yellow, 8, "c", end+5, ""))
	out = append(out, scenario{file: "c4-0005.json", what: "full_column,uppercase,in_progress",
		evs: e5, status: "active", result: nil, reason: nil, moves: append(lower(g5), "e", "c"), finalBy: nil})

	// 6. Yellow's line made by the 42nd disc: a win, not a draw.
	g6 := cols("fgbdgbeefbadbfcaagbaefcaefaecefbgcgccddgdd")
	e6 := append([]ev{acc(t0 + 60)}, play(g6, s0)...)
	end = after(g6, s0)
	e6 = append(e6, mv(red, 43, "a", end+1, "game_over"),
		sig(yellow, "second", "four_in_a_row", g6, end+5, ""),
		sig(red, "second", "four_in_a_row", g6, end+6, ""))
	e6[len(e6)-1].final = true
	out = append(out, scenario{file: "c4-0006.json", what: "four_in_a_row:last_disc,final:signatures",
		evs: e6, status: "over", result: "second", reason: "four_in_a_row", moves: g6, finalBy: "signatures"})

	// 7. The 42nd disc with no line: a draw by board_full; a 43rd move is
	// ignored; a signature of a win is inconsistent.
	g7 := cols("fdcdbfdbabebcfafggcagaecdadecdcgaebbfeefgg")
	e7 := append([]ev{acc(t0 + 60)}, play(g7, s0)...)
	end = after(g7, s0)
	e7 = append(e7, mv(red, 43, "a", end+1, "game_over"),
		sig(red, "first", "four_in_a_row", g7, end+2, "inconsistent"),
		sig(red, "draw", "board_full", g7, end+3, ""),
		sig(yellow, "draw", "board_full", g7, end+4, ""))
	e7[len(e7)-1].final = true
	out = append(out, scenario{file: "c4-0007.json", what: "board_full,after_over,final:signatures",
		evs: e7, status: "over", result: "draw", reason: "board_full", moves: g7, finalBy: "signatures"})

	// 8. The challenger's first column, sent in uppercase before the
	// accept, is held and counted at the accept; Yellow's clock then runs
	// out and Red claims on time with the hash of the normalized column.
	e8 := []ev{mv(red, 1, "D", t0+10, ""), mv(red, 1, "c", t0+11, "not_accepted"), acc(t0 + 60),
		res(red, nostr.Result{Result: "first", Reason: "timeout", Plies: 1, FinalHash: hash("d")}, t0+60+86400, "too_early"),
		res(red, nostr.Result{Result: "first", Reason: "timeout", Plies: 1, FinalHash: hash("D")}, t0+60+86401, "wrong_hash"),
		res(red, nostr.Result{Result: "first", Reason: "timeout", Plies: 1, FinalHash: hash("d")}, t0+60+86402, "")}
	e8[len(e8)-1].final = true
	out = append(out, scenario{file: "c4-0008.json", what: "held_first_move,uppercase,claim:valid,claim:boundary",
		evs: e8, status: "over", result: "first", reason: "timeout", moves: []string{"d"}, finalBy: "timeout"})

	// 9. A draw by agreement in the middle of a game; Yellow's resign
	// after it is ignored.
	g9 := cols("dcdc")
	e9 := append([]ev{acc(t0 + 60)}, play(g9, s0)...)
	end = after(g9, s0)
	e9 = append(e9, sig(yellow, "draw", "agreement", g9, end+5, ""),
		sig(red, "draw", "agreement", g9, end+6, ""),
		mv(yellow, 5, "resign", end+7, "game_over"))
	e9[len(e9)-2].final = true
	out = append(out, scenario{file: "c4-0009.json", what: "agreement:draw,after_final",
		evs: e9, status: "over", result: "draw", reason: "agreement", moves: g9, finalBy: "signatures"})

	// 10. Red resigns at ply 4, out of turn; a stranger's column and a
	// column out of turn are ignored.
	g10 := cols("dcd")
	e10 := append([]ev{acc(t0 + 60)}, play(g10, s0)...)
	end = after(g10, s0)
	e10 = append(e10, mv(carol, 4, "c", end+1, "not_player"), mv(red, 4, "c", end+2, "wrong_player"),
		mv(red, 4, "resign", end+3, ""), mv(yellow, 4, "c", end+4, "game_over"))
	out = append(out, scenario{file: "c4-0010.json", what: "resignation,inject:stranger,wrong_player",
		evs: e10, status: "over", result: "second", reason: "resignation", moves: g10, finalBy: nil})

	// 11-13. Challenges: the game token is exact.
	out = append(out,
		scenario{file: "c4-0011.json", what: "no_match:game_case", game: `{"game":"Connect4"}`, noMatch: "game"},
		scenario{file: "c4-0012.json", what: "no_match:game_spelling", game: `{"game":"connect-four"}`, noMatch: "game"},
		scenario{file: "c4-0013.json", what: "challenge:extra_fields,repeated_key", game: `{"game":"chess","game":"connect4","rows":7}`,
			evs:    []ev{acc(t0 + 60), mv(red, 1, "e2e4", s0, "illegal"), mv(red, 1, "g", s0+1, "")},
			status: "active", result: nil, reason: nil, moves: []string{"g"}, finalBy: nil})
	return out
}

type summary struct {
	Match      string    `json:"match"`
	Game       string    `json:"game"`
	First      string    `json:"first"`
	Second     *string   `json:"second"`
	Status     string    `json:"status"`
	Result     any       `json:"result"`
	Reason     any       `json:"reason"`
	Plies      int       `json:"plies"`
	FinalHash  string    `json:"final_hash"`
	Final      bool      `json:"final"`
	FinalBy    any       `json:"final_by"`
	FinalEvent *string   `json:"final_event"`
	Moves      []string  `json:"moves"`
	Ignored    []ignored `json:"ignored"`
}

type ignored struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

func main() {
	dir := "match/testdata/connect4"
	rng := rand.New(rand.NewSource(40))
	manifest := "file\tscenario\n"
	for _, sc := range scenarios() {
		content := sc.game
		if content == "" {
			content = `{"game":"connect4"}`
		}
		ch := nostr.NewChallenge("connect4", "", t0)
		ch.Content = content
		testkit.Sign(red, ch)
		events := []*nostr.Event{ch}
		seen := map[string]int64{ch.ID: t0}
		type used struct {
			e   *nostr.Event
			ign string
		}
		var all []used
		var finalID *string
		for _, x := range sc.evs {
			e := testkit.Sign(x.key, x.build(ch.ID))
			events = append(events, e)
			all = append(all, used{e, x.ign})
			seen[e.ID] = int64(e.CreatedAt)
			if x.seen != 0 {
				seen[e.ID] = x.seen
			}
			if x.final {
				id := e.ID
				finalID = &id
			}
		}
		// Fold order: created_at, then id (section 2).
		sort.SliceStable(all, func(i, j int) bool {
			a, b := all[i].e, all[j].e
			if a.CreatedAt != b.CreatedAt {
				return a.CreatedAt < b.CreatedAt
			}
			return a.ID < b.ID
		})
		var sum any
		if sc.noMatch != "" {
			id := ch.ID
			sum = map[string]any{"match": &id, "error": "no match: the challenge's " + sc.noMatch + " is not a game of revision 4"}
		} else {
			s := summary{Match: ch.ID, Game: "connect4", First: red.PublicKey(), Status: sc.status,
				Result: sc.result, Reason: sc.reason, Plies: len(sc.moves), FinalHash: hash(sc.moves...),
				Final: sc.finalBy != nil, FinalBy: sc.finalBy, FinalEvent: finalID, Moves: sc.moves, Ignored: []ignored{}}
			if len(sc.evs) > 0 {
				y := yellow.PublicKey()
				s.Second = &y
			}
			for _, u := range all {
				if u.ign != "" {
					s.Ignored = append(s.Ignored, ignored{ID: u.e.ID, Reason: u.ign})
				}
			}
			sum = s
		}
		// Shuffled, one event twice: the fold's order is its own.
		if len(events) > 2 {
			events = append(events, events[1+rng.Intn(len(events)-1)])
		}
		rng.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
		doc := map[string]any{"match": ch.ID, "events": events, "seen_at": seen, "summary": sum}
		b, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			panic(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sc.file), append(b, '\n'), 0o644); err != nil {
			panic(err)
		}
		manifest += sc.file + "\t" + sc.what + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST.tsv"), []byte(manifest), 0o644); err != nil {
		panic(err)
	}
	fmt.Println("wrote", dir)
}
