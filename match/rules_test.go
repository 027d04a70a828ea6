package match

import (
	"errors"
	"math/rand"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// Times used by the rule tests: the challenge at t0, the accept a minute later.
const t0 = int64(1_750_000_000)

var (
	alice = testkit.Key("alice")
	bob   = testkit.Key("bob")
	carol = testkit.Key("carol")
)

func fold(t *testing.T, m *testkit.Match) *State {
	t.Helper()
	st, err := Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatalf("fold: %v", err)
	}
	return st
}

// token returns the ignore token of ev, "" if ev was not ignored.
func token(st *State, ev *nostr.Event) string {
	for _, i := range st.Ignored {
		if i.ID == ev.ID {
			return i.Token
		}
	}
	return ""
}

func gomokuMatch() *testkit.Match {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	m.Accept(t0 + 60)
	return m
}

// five plays a quick five in a row for the first player: h8..l8.
var fiveMoves = []string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"}

func TestSection2ChallengeInvalid(t *testing.T) {
	cases := []struct {
		name string
		ev   *nostr.Event
		why  string
	}{
		{"content not JSON", &nostr.Event{Kind: nostr.KindChallenge, Content: "chess", Tags: nostr.Tags{{"t", nostr.GamesTopic}}}, "not a JSON object"},
		{"unknown game", nostr.NewChallenge("go", "", t0), "game is not"},
		{"game case differs", nostr.NewChallenge("Chess", "", t0), "game is not"},
		{"no topic tag", &nostr.Event{Kind: nostr.KindChallenge, Content: `{"game":"chess"}`, Tags: nostr.Tags{{"t", "other"}}}, "no t tag"},
		{"two p tags", &nostr.Event{Kind: nostr.KindChallenge, Content: `{"game":"chess"}`, Tags: nostr.Tags{{"t", nostr.GamesTopic}, {"p", bob.PublicKey()}, {"p", carol.PublicKey()}}}, "more than one p tag"},
		{"p without value", &nostr.Event{Kind: nostr.KindChallenge, Content: `{"game":"chess"}`, Tags: nostr.Tags{{"t", nostr.GamesTopic}, {"p"}}}, "p tag without a value"},
		{"invites itself", nostr.NewChallenge("chess", alice.PublicKey(), t0), "invites itself"},
		{"too large", &nostr.Event{Kind: nostr.KindChallenge, Content: `{"game":"chess","pad":"` + strings.Repeat("x", 65536) + `"}`, Tags: nostr.Tags{{"t", nostr.GamesTopic}}}, "exceeds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.ev.CreatedAt = nostr.Timestamp(t0)
			testkit.Sign(alice, c.ev)
			_, err := Fold(c.ev.ID, []*nostr.Event{c.ev}, nil)
			var nm *NoMatchError
			if !errors.As(err, &nm) || !strings.Contains(err.Error(), c.why) {
				t.Fatalf("got %v, want no match containing %q", err, c.why)
			}
		})
	}
}

func TestSection2ChallengeRepeatedKeyKeepsLast(t *testing.T) {
	ev := &nostr.Event{Kind: nostr.KindChallenge, CreatedAt: nostr.Timestamp(t0),
		Content: `{"game":"go","game":"gomoku","extra":1}`, Tags: nostr.Tags{{"t", nostr.GamesTopic}, {"t", "x"}}}
	testkit.Sign(alice, ev)
	st, err := Fold(ev.ID, []*nostr.Event{ev}, nil)
	if err != nil || st.Kind != "gomoku" {
		t.Fatalf("got %v %v, want a gomoku match", st, err)
	}
}

func TestSection2ChallengeExpiry(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "chess", "", t0)
	st := fold(t, m)
	if got := st.Status(t0 + ChallengeExpiry); got != StatusOpen {
		t.Errorf("at the last second: got %s, want open", got)
	}
	if got := st.Status(t0 + ChallengeExpiry + 1); got != StatusExpired {
		t.Errorf("one second later: got %s, want expired", got)
	}
}

func TestSection2Accept(t *testing.T) {
	cases := []struct {
		name    string
		invitee string
		build   func(m *testkit.Match) *nostr.Event
		token   string
	}{
		{"valid at the expiry second", "", func(m *testkit.Match) *nostr.Event {
			return m.Add(bob, nostr.NewAccept(m.ID, alice.PublicKey(), t0+ChallengeExpiry))
		}, ""},
		{"after expiry", "", func(m *testkit.Match) *nostr.Event {
			return m.Add(bob, nostr.NewAccept(m.ID, alice.PublicKey(), t0+ChallengeExpiry+1))
		}, IgnAcceptWindow},
		{"before the challenge", "", func(m *testkit.Match) *nostr.Event {
			return m.Add(bob, nostr.NewAccept(m.ID, alice.PublicKey(), t0-1))
		}, IgnAcceptWindow},
		{"by the challenger", "", func(m *testkit.Match) *nostr.Event {
			return m.Add(alice, nostr.NewAccept(m.ID, alice.PublicKey(), t0+1))
		}, IgnAcceptSelf},
		{"not the invitee", carol.PublicKey(), func(m *testkit.Match) *nostr.Event {
			return m.Add(bob, nostr.NewAccept(m.ID, alice.PublicKey(), t0+1))
		}, IgnAcceptNotInv},
		{"no p naming the challenger", "", func(m *testkit.Match) *nostr.Event {
			return m.Add(bob, nostr.NewAccept(m.ID, carol.PublicKey(), t0+1))
		}, IgnAcceptBadP},
		{"two g tags", "", func(m *testkit.Match) *nostr.Event {
			ev := nostr.NewAccept(m.ID, alice.PublicKey(), t0+1)
			ev.Tags = append(ev.Tags, []string{"g", m.ID})
			return m.Add(bob, ev)
		}, IgnBadG},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testkit.NewMatch(alice, bob, "chess", c.invitee, t0)
			ev := c.build(m)
			st := fold(t, m)
			if got := token(st, ev); got != c.token {
				t.Fatalf("got ignore token %q, want %q", got, c.token)
			}
			if st.Accepted != (c.token == "") {
				t.Fatalf("accepted = %v", st.Accepted)
			}
		})
	}
}

func TestSection2AcceptFirstCounts(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "chess", "", t0)
	first := m.Add(carol, nostr.NewAccept(m.ID, alice.PublicKey(), t0+5))
	later := m.Accept(t0 + 9)
	st := fold(t, m)
	if st.Second != carol.PublicKey() || token(st, first) != "" || token(st, later) != IgnAcceptExtra {
		t.Fatalf("second=%s ignored=%v", st.Second, st.Ignored)
	}
}

func TestSection2MoveRules(t *testing.T) {
	acc := t0 + 60
	cases := []struct {
		name  string
		build func(m *testkit.Match) *nostr.Event
		seen  int64 // seen_at of the tested event, 0 for its created_at
		token string
	}{
		{"wrong ply", func(m *testkit.Match) *nostr.Event { return m.Move(alice, 2, "h8", acc+1) }, 0, IgnWrongPly},
		{"wrong player", func(m *testkit.Match) *nostr.Event { return m.Move(bob, 1, "h8", acc+1) }, 0, IgnWrongPlayer},
		{"stranger", func(m *testkit.Match) *nostr.Event { return m.Move(carol, 1, "h8", acc+1) }, 0, IgnWrongPlayer},
		{"illegal point", func(m *testkit.Match) *nostr.Event { return m.Move(alice, 1, "h08", acc+1) }, 0, IgnIllegal},
		{"ply with leading zero", func(m *testkit.Match) *nostr.Event { return m.Move(alice, 1, "h8", acc+1) }, -1, IgnBadPly},
		{"stamped 300 s ahead of seen_at", func(m *testkit.Match) *nostr.Event { return m.Move(alice, 1, "h8", acc+400) }, acc + 100, ""},
		{"stamped 301 s ahead of seen_at", func(m *testkit.Match) *nostr.Event { return m.Move(alice, 1, "h8", acc+401) }, acc + 100, IgnFuture},
		{"at the clock's last second", func(m *testkit.Match) *nostr.Event { return m.Move(alice, 1, "h8", acc+MoveClock) }, 0, ""},
		{"one second late", func(m *testkit.Match) *nostr.Event { return m.Move(alice, 1, "h8", acc+MoveClock+1) }, 0, IgnLate},
		{"resign by a stranger", func(m *testkit.Match) *nostr.Event { return m.Move(carol, 1, "resign", acc+1) }, 0, IgnNotPlayer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := gomokuMatch()
			ev := c.build(m)
			seen := map[string]int64{}
			switch {
			case c.seen == -1:
				ev.Tags[1][1] = "01"
				testkit.Sign(alice, ev)
			case c.seen > 0:
				seen[ev.ID] = c.seen
			}
			st, err := Fold(m.ID, m.Events, seen)
			if err != nil {
				t.Fatal(err)
			}
			if got := token(st, ev); got != c.token {
				t.Fatalf("got %q (%v), want %q", got, st.Ignored, c.token)
			}
		})
	}
}

func TestSection2ClockStart(t *testing.T) {
	m := gomokuMatch()
	acc := t0 + 60
	m.Move(alice, 1, "h8", acc+10)
	// Ply 2's clock starts at the accept, not at ply 1.
	late := m.Move(bob, 2, "h9", acc+MoveClock+1)
	st := fold(t, m)
	if token(st, late) != IgnLate {
		t.Fatalf("ply 2 at accept+86401: got %v, want late", st.Ignored)
	}
	m2 := gomokuMatch()
	m2.Move(alice, 1, "h8", acc+10)
	m2.Move(bob, 2, "h9", acc+20)
	ok := m2.Move(alice, 3, "h10", acc+20+MoveClock)
	st2 := fold(t, m2)
	if token(st2, ok) != "" || st2.Plies() != 3 {
		t.Fatalf("ply 3 at the previous move + 86400 must count: %v", st2.Ignored)
	}
}

func TestSection2Resign(t *testing.T) {
	for _, who := range []string{"first", "second"} {
		t.Run(who, func(t *testing.T) {
			m := gomokuMatch()
			m.Move(alice, 1, "h8", t0+100)
			k, want := alice, Second
			if who == "second" {
				k, want = bob, First
			}
			// Either player may resign at ply count+1, even out of turn.
			m.Move(k, 2, "resign", t0+200)
			after := m.Move(bob, 2, "h9", t0+300)
			st := fold(t, m)
			if !st.Over || st.Result != want || st.Reason != ReasonResignation || st.Plies() != 1 {
				t.Fatalf("got over=%v result=%s reason=%s plies=%d", st.Over, st.Result, st.Reason, st.Plies())
			}
			if token(st, after) != IgnGameOver {
				t.Fatalf("move after the end: %v", st.Ignored)
			}
		})
	}
}

func TestSection2HeldFirstMove(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	held := m.Move(alice, 1, "h8", t0+10)
	second := m.Move(alice, 1, "h9", t0+11)
	st := fold(t, m)
	if token(st, held) != IgnHeld || token(st, second) != IgnNotAccepted {
		t.Fatalf("before the accept: %v", st.Ignored)
	}
	m.Accept(t0 + 50)
	st = fold(t, m)
	if st.Plies() != 1 || st.Moves[0] != "h8" || token(st, held) != "" || token(st, second) != IgnNotAccepted {
		t.Fatalf("after the accept: plies=%d ignored=%v", st.Plies(), st.Ignored)
	}
	if st.ClockStart() != t0+50 {
		t.Fatalf("ply 2's clock starts at the accept: got %d", st.ClockStart())
	}
}

func TestSection2HeldMoveBeforeChallengeIgnored(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	early := m.Move(alice, 1, "h8", t0-1)
	m.Accept(t0 + 50)
	st := fold(t, m)
	if st.Plies() != 0 || token(st, early) == "" {
		t.Fatalf("a move stamped before the challenge must not be held: %v", st.Ignored)
	}
}

func TestSection2EndByRule(t *testing.T) {
	m := gomokuMatch()
	last := m.Play(fiveMoves, t0+100, 10)
	after := m.Move(bob, 10, "b1", last+10)
	st := fold(t, m)
	if !st.Over || st.Result != First || st.Reason != ReasonFiveInARow || st.EndedAt != last {
		t.Fatalf("got %+v", st.Summary(0))
	}
	if token(st, after) != IgnGameOver {
		t.Fatalf("after the end: %v", st.Ignored)
	}
}

func result(st *State, r string) nostr.Result {
	return nostr.Result{Result: r, Reason: "x", Plies: st.Plies(), FinalHash: st.FinalHash()}
}

func TestSection2Signatures(t *testing.T) {
	m := gomokuMatch()
	last := m.Play(fiveMoves, t0+100, 10)
	st := fold(t, m)
	wrong := m.Result(bob, result(st, Second), last+1)
	stale := m.Result(bob, nostr.Result{Result: First, Reason: "five_in_a_row", Plies: 3, FinalHash: st.FinalHash()}, last+2)
	a := m.Result(alice, result(st, First), last+3)
	b := m.Result(bob, result(st, First), last+4)
	late := m.Result(alice, result(st, First), last+5)
	st = fold(t, m)
	if token(st, wrong) != IgnSigInconsistent || token(st, stale) != IgnSigInconsistent || token(st, a) != "" {
		t.Fatalf("inconsistent signatures: %v", st.Ignored)
	}
	if !st.Final || st.FinalBy != FinalBySignatures || st.FinalEvent != b.ID || st.Reason != ReasonFiveInARow {
		t.Fatalf("got %+v", st.Summary(0))
	}
	if token(st, late) != IgnAlreadyFinal {
		t.Fatalf("after final: %v", st.Ignored)
	}
}

func TestSection2AgreedDraw(t *testing.T) {
	m := gomokuMatch()
	m.Play([]string{"h8", "h9"}, t0+100, 10)
	st := fold(t, m)
	m.Result(alice, result(st, Draw), t0+200)
	agree := m.Result(bob, result(st, Draw), t0+201)
	move := m.Move(alice, 3, "a1", t0+202)
	st = fold(t, m)
	if !st.Over || st.Result != Draw || st.Reason != ReasonAgreement || st.FinalEvent != agree.ID {
		t.Fatalf("got %+v", st.Summary(0))
	}
	if token(st, move) != IgnGameOver {
		t.Fatalf("a move after agreement: %v", st.Ignored)
	}
}

func TestSection2TimeoutClaim(t *testing.T) {
	acc := t0 + 60
	cases := []struct {
		name  string
		by    func(m *testkit.Match) nostr.SecretKey
		at    int64
		res   string
		token string
	}{
		{"at the deadline second is premature", func(m *testkit.Match) nostr.SecretKey { return m.B }, acc + 10 + MoveClock, Second, IgnClaimPremature},
		{"one second after is valid", func(m *testkit.Match) nostr.SecretKey { return m.B }, acc + 10 + MoveClock + 1, Second, ""},
		{"by the player to move", func(m *testkit.Match) nostr.SecretKey { return m.A }, acc + 10 + 2*MoveClock, First, IgnClaimInvalid},
		{"naming the other role", func(m *testkit.Match) nostr.SecretKey { return m.B }, acc + 10 + 2*MoveClock, First, IgnClaimInvalid},
		{"by a stranger", func(m *testkit.Match) nostr.SecretKey { return carol }, acc + 10 + 2*MoveClock, Second, IgnNotPlayer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := gomokuMatch()
			m.Move(alice, 1, "h8", acc+5)
			m.Move(bob, 2, "h9", acc+10)
			st := fold(t, m)
			r := result(st, c.res)
			r.Reason = "timeout"
			claim := m.Result(c.by(m), r, c.at)
			st = fold(t, m)
			if got := token(st, claim); got != c.token {
				t.Fatalf("got %q, want %q (%v)", got, c.token, st.Ignored)
			}
			if c.token == "" && (!st.Final || st.FinalBy != FinalByTimeout || st.Result != Second || st.Reason != ReasonTimeout) {
				t.Fatalf("a valid claim is final on its own: %+v", st.Summary(0))
			}
		})
	}
}

func TestSection2ArbitrationRequest(t *testing.T) {
	acc := t0 + 60
	m := gomokuMatch()
	m.Move(alice, 1, "h8", acc+5)
	early := m.Request(alice, acc+MoveClock)   // deadline is accept + 86400 for ply 2
	valid := m.Request(alice, acc+MoveClock+1) // one second after: valid
	stranger := m.Request(carol, acc+MoveClock+2)
	st := fold(t, m)
	if token(st, early) != IgnRequestInvalid || token(st, valid) != "" || token(st, stranger) != IgnNotPlayer {
		t.Fatalf("got %v", st.Ignored)
	}
	if len(st.Requests) != 1 || st.Requests[0].Event != valid.ID {
		t.Fatalf("requests %v", st.Requests)
	}
}

func TestSection2RequestWhenSignaturesDisagree(t *testing.T) {
	m := gomokuMatch()
	last := m.Play([]string{"h8", "h9"}, t0+100, 10)
	st := fold(t, m)
	m.Result(alice, result(st, First), last+1)
	m.Result(bob, result(st, Second), last+2)
	req := m.Request(bob, last+3)
	st = fold(t, m)
	if token(st, req) != "" || !st.SignaturesDisagree() {
		t.Fatalf("a request is valid when signatures disagree: %v", st.Ignored)
	}
}

func TestSection2Rulings(t *testing.T) {
	acc := t0 + 60
	m := gomokuMatch()
	m.Move(alice, 1, "h8", acc+5)
	st := fold(t, m)
	win := result(st, First) // second player to move: the first wins on time
	deadline := acc + MoveClock
	noReq := m.Ruling(carol, win, deadline+1)
	m.Request(alice, deadline+2)
	wrong := m.Ruling(carol, result(st, Second), deadline+3)
	good := m.Ruling(carol, win, deadline+4)
	again := m.Ruling(bob, win, deadline+5)
	st = fold(t, m)
	if token(st, noReq) != IgnRulingNoRequest || token(st, wrong) != IgnRulingIncorrect || token(st, good) != "" || token(st, again) != IgnAlreadyFinal {
		t.Fatalf("got %v", st.Ignored)
	}
	if !st.Final || st.FinalBy != FinalByRuling || st.FinalEvent != good.ID || st.Reason != ReasonTimeout || st.Result != First {
		t.Fatalf("got %+v", st.Summary(0))
	}
}

func TestSection2RulingBeforeClockRunsOut(t *testing.T) {
	m := gomokuMatch()
	last := m.Play([]string{"h8", "h9"}, t0+100, 10)
	st := fold(t, m)
	m.Result(alice, result(st, First), last+1)
	m.Result(bob, result(st, Second), last+2)
	m.Request(bob, last+3)
	r := m.Ruling(carol, result(st, First), last+4)
	st = fold(t, m)
	if token(st, r) != IgnRulingIncorrect || st.Final {
		t.Fatalf("no ruling is correct while the clock runs: %v", st.Ignored)
	}
}

func TestSection2NothingBeforeAccept(t *testing.T) {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	res := m.Result(alice, nostr.Result{Result: Draw, Reason: "agreement", Plies: 0, FinalHash: "x"}, t0+1)
	req := m.Request(alice, t0+2)
	rul := m.Ruling(carol, nostr.Result{Result: Draw, Reason: "agreement", Plies: 0, FinalHash: "x"}, t0+3)
	st := fold(t, m)
	for _, ev := range []*nostr.Event{res, req, rul} {
		if token(st, ev) != IgnNotAccepted {
			t.Fatalf("kind %d before the accept: %v", ev.Kind, st.Ignored)
		}
	}
}

// TestSection2OrderIndependence is the property of section 2: any
// permutation of the events, with duplicates, yields the same summary.
func TestSection2OrderIndependence(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < 30; n++ {
		m := randomGomokuMatch(rng)
		want := MarshalLine(fold(t, m).Summary(t0))
		for p := 0; p < 20; p++ {
			evs := append([]*nostr.Event(nil), m.Events...)
			for d := rng.Intn(5); d > 0; d-- {
				evs = append(evs, evs[rng.Intn(len(evs))])
			}
			rng.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
			st, err := Fold(m.ID, evs, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := MarshalLine(st.Summary(t0)); string(got) != string(want) {
				t.Fatalf("match %d permutation %d:\ngot  %s\nwant %s", n, p, got, want)
			}
		}
	}
}

// randomGomokuMatch makes a match with random legal and illegal moves,
// duplicates at the same second, and stray results.
func randomGomokuMatch(rng *rand.Rand) *testkit.Match {
	m := testkit.NewMatch(alice, bob, "gomoku", "", t0)
	at := t0 + int64(rng.Intn(100))
	m.Accept(at)
	ply := 1
	for i := 0; i < 10+rng.Intn(30); i++ {
		at += int64(rng.Intn(3))
		k := alice
		if rng.Intn(2) == 0 {
			k = bob
		}
		p := ply
		if rng.Intn(5) == 0 {
			p = ply + rng.Intn(3) - 1
			if p < 1 {
				p = 1
			}
		}
		pt := string(rune('a'+rng.Intn(6))) + string(rune('1'+rng.Intn(6)))
		m.Move(k, p, pt, at)
		if rng.Intn(3) > 0 {
			ply++
		}
		if rng.Intn(10) == 0 {
			m.Result(k, nostr.Result{Result: Draw, Reason: "agreement", Plies: ply - 1, FinalHash: "h"}, at)
		}
	}
	return m
}

// A request is valid on signatures only when both players have signed and
// they differ: one signature alone is not a disagreement (our reading of
// section 2, Arbitration).
func TestSection2OneSignatureIsNoDisagreement(t *testing.T) {
	m := gomokuMatch()
	last := m.Play([]string{"h8", "h9"}, t0+100, 10)
	st := fold(t, m)
	m.Result(alice, result(st, First), last+1)
	req := m.Request(alice, last+2)
	st = fold(t, m)
	if token(st, req) != IgnRequestInvalid {
		t.Fatalf("got %v", st.Ignored)
	}
}

func TestSection6SeenAt(t *testing.T) {
	m := gomokuMatch()
	mv := m.Move(alice, 1, "h8", t0+1000)
	var evs []string
	for _, ev := range m.Events {
		evs = append(evs, string(nostr.MarshalEvent(ev)))
	}
	cases := []struct {
		seen  string
		plies int
	}{
		{`"` + mv.ID + `":1750000700`, 1},   // t0+1000 <= t0+700+300
		{`"` + mv.ID + `":1750000699`, 0},   // one second short: future-dated
		{`"` + mv.ID + `":1750000699.9`, 0}, // fractions do not round up
		{`"` + mv.ID + `":"late"`, 1},       // not a number: created_at stands in
		{`"` + mv.ID + `":null`, 1},         // likewise
		{`"` + mv.ID + `":1e300`, 1},        // a huge number is still a number
		{`"` + mv.ID + `":-1e300`, 0},       // and so is a huge negative one
	}
	for _, c := range cases {
		doc := `{"match":"` + m.ID + `","events":[` + strings.Join(evs, ",") + `],"seen_at":{` + c.seen + `}}`
		f, err := ParseFile([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		st, err := Fold(f.Match, f.Events, f.SeenAt)
		if err != nil || st.Plies() != c.plies {
			t.Errorf("seen_at %s: plies %d, want %d (%v)", c.seen, st.Plies(), c.plies, err)
		}
	}
}

// TestExtendEqualsFold: extending a state event by event (in fold order)
// gives the same summary as folding everything at once, and Extend refuses
// an event that would sort earlier.
func TestExtendEqualsFold(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < 20; n++ {
		m := randomGomokuMatch(rng)
		want := fold(t, m)
		ordered := append([]*nostr.Event(nil), want.Events[1:]...)
		st, err := Fold(m.ID, m.Events[:1], nil)
		if err != nil {
			t.Fatal(err)
		}
		lean := n%2 == 1 // half the runs without events, as the daemon keeps them
		if lean {
			st = st.Lean()
		}
		for _, ev := range ordered {
			next := st.Clone()
			if !next.Extend(ev, int64(ev.CreatedAt)) {
				t.Fatalf("Extend refused an event in fold order")
			}
			st = next
		}
		if got, w := MarshalLine(st.Summary(t0)), MarshalLine(want.Summary(t0)); string(got) != string(w) {
			t.Fatalf("extended:\n%s\nfolded:\n%s", got, w)
		}
		if len(ordered) > 1 && st.Clone().Extend(ordered[0], 0) {
			t.Fatal("Extend accepted an event that sorts before the last")
		}
		if n := len(ordered); n > 0 && st.Clone().Extend(ordered[n-1], 0) {
			t.Fatal("Extend accepted the last event again")
		}
		if n := len(ordered); n > 0 && st.LastFolded() != int64(ordered[n-1].CreatedAt) {
			t.Fatalf("LastFolded = %d, want the last event's %d", st.LastFolded(), ordered[n-1].CreatedAt)
		}
		if lean && st.Events != nil {
			t.Fatal("a lean state gained events")
		}
	}
}

func TestCompactKeepsTheSummary(t *testing.T) {
	m := gomokuMatch()
	m.Play(fiveMoves, t0+100, 10)
	st := fold(t, m)
	c := st.Compact()
	if got, want := MarshalLine(c.Summary(t0)), MarshalLine(st.Summary(t0)); string(got) != string(want) {
		t.Fatalf("compact:\n%s\nfull:\n%s", got, want)
	}
	if c.Extend(m.Events[len(m.Events)-1], t0) {
		t.Fatal("a compacted state must ask for a re-fold")
	}
}
