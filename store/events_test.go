package store

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"vesper/nostr"
)

func TestPutEventDedupesAndCollectsRelays(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	k := nostr.GenerateKey()
	ev := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 1000))
	first := nostr.MarshalEvent(ev)
	// A relay may send the same event with other whitespace; the first
	// bytes received are the ones kept.
	second := bytes.ReplaceAll(first, []byte(`,"`), []byte(`, "`))

	steps := []struct {
		raw    []byte
		relay  string
		seenAt int64
		isNew  bool
	}{
		{first, "wss://b.example", 1005, true},
		{second, "wss://a.example", 2000, false},
		{first, "wss://b.example", 3000, false},
		{nil, "", 4000, false},
	}
	for i, st := range steps {
		got, err := s.PutEvent(ctx, ev, st.raw, st.relay, st.seenAt)
		if err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
		if got != st.isNew {
			t.Errorf("put %d: new = %v, want %v", i, got, st.isNew)
		}
	}
	se, ok, err := s.Event(ctx, ev.ID)
	if err != nil || !ok {
		t.Fatalf("Event: %v %v", ok, err)
	}
	if se.SeenAt != 1005 {
		t.Errorf("seen_at = %d, want 1005 (the first call's)", se.SeenAt)
	}
	if want := []string{"wss://a.example", "wss://b.example"}; !slices.Equal(se.Relays, want) {
		t.Errorf("relays = %q, want %q", se.Relays, want)
	}
	if !bytes.Equal(se.Raw, first) {
		t.Errorf("raw = %s, want the first copy %s", se.Raw, first)
	}
	if se.Event.ID != ev.ID || se.Event.Content != ev.Content || se.Event.Sig != ev.Sig {
		t.Errorf("event read back differs: %+v", se.Event)
	}
	if n, m, err := s.Stats(ctx); err != nil || n != 1 || m != 1 {
		t.Errorf("Stats = %d, %d, %v; want 1, 1", n, m, err)
	}
}

func TestPutEventsBatch(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	k := nostr.GenerateKey()
	ch := signed(t, k, nostr.NewChallenge(nostr.GameGomoku, "", 100))
	mv := signed(t, k, nostr.NewMove(ch.ID, 1, "h8", 101))
	if _, err := s.PutEvent(ctx, ch, nil, "wss://r1", 100); err != nil {
		t.Fatal(err)
	}
	batch := []Incoming{
		{Event: ch, Relay: "wss://r2", SeenAt: 200},
		{Event: mv, Relay: "wss://r1", SeenAt: 201},
		{Event: mv, Relay: "wss://r2", SeenAt: 202},
	}
	news, err := s.PutEvents(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{false, true, false}; !slices.Equal(news, want) {
		t.Errorf("news = %v, want %v", news, want)
	}
	evs, err := s.MatchEvents(ctx, ch.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{ch.ID, mv.ID}; !slices.Equal(ids(evs), want) {
		t.Fatalf("match events = %v, want %v", ids(evs), want)
	}
	if evs[1].SeenAt != 201 || !slices.Equal(evs[1].Relays, []string{"wss://r1", "wss://r2"}) {
		t.Errorf("move stored as seen_at %d relays %q", evs[1].SeenAt, evs[1].Relays)
	}

	// One bad item rejects the whole batch before anything is written.
	other := signed(t, k, nostr.NewMove(ch.ID, 2, "h9", 102))
	_, err = s.PutEvents(ctx, []Incoming{{Event: other, SeenAt: 1}, {Event: nil}})
	if err == nil || !strings.Contains(err.Error(), "batch item 1") {
		t.Errorf("bad batch: err = %v, want one naming batch item 1", err)
	}
	if ok, _ := s.HasEvent(ctx, other.ID); ok {
		t.Errorf("a rejected batch left %s behind", other.ID)
	}
	if news, err := s.PutEvents(ctx, nil); err != nil || len(news) != 0 {
		t.Errorf("empty batch: %v, %v", news, err)
	}
}

func TestPutEventRejectsBadInput(t *testing.T) {
	s := openTemp(t)
	k := nostr.GenerateKey()
	good := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 10))
	otherEv := signed(t, k, nostr.NewChallenge(nostr.GameGomoku, "", 10))
	unsigned := nostr.NewChallenge(nostr.GameChess, "", 10)
	upper := *good
	upper.ID = strings.ToUpper(good.ID)
	// Events the relay gate never passes, which the store could not write
	// as JSON that reads back as them.
	latin1 := signed(t, k, &nostr.Event{Kind: nostr.KindMove, CreatedAt: 10, Content: "caf\xe9"})
	latin1Tag := signed(t, k, &nostr.Event{Kind: nostr.KindMove, CreatedAt: 10, Tags: nostr.Tags{{"g", "\xff"}}})
	beforeEpoch := signed(t, k, &nostr.Event{Kind: nostr.KindMove, CreatedAt: -1})
	pastSafe := signed(t, k, &nostr.Event{Kind: nostr.KindMove, CreatedAt: nostr.MaxCreatedAt + 1})

	tests := []struct {
		name   string
		ev     *nostr.Event
		raw    []byte
		seenAt int64
		want   string
	}{
		{"nil event", nil, nil, 0, "nil event"},
		{"unsigned", unsigned, nil, 0, "malformed event id"},
		{"uppercase id", &upper, nil, 0, "malformed event id"},
		{"raw not JSON", good, []byte("{"), 0, "raw"},
		{"raw of another event", good, nostr.MarshalEvent(otherEv), 0, "another event"},
		{"negative seen_at", good, nil, -1, "negative seen_at"},
		{"content not UTF-8", latin1, nil, 0, "content is not UTF-8"},
		{"tag not UTF-8", latin1Tag, nil, 0, "tag 0 is not UTF-8"},
		{"negative created_at", beforeEpoch, nil, 0, "created_at -1 outside"},
		{"created_at past 2^53-1 (issue 30, item 11)", pastSafe, nil, 0, "created_at 9007199254740992 outside"},
		{"created_at past 2^53-1, raw its marshaling", pastSafe, nostr.MarshalEvent(pastSafe), 0, "created_at: above 2^53-1"},
		{"content not UTF-8, raw its marshaling", latin1, nostr.MarshalEvent(latin1), 0, "another event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.PutEvent(t.Context(), tt.ev, tt.raw, "wss://r", tt.seenAt)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if n, _, _ := s.Stats(t.Context()); n != 0 {
		t.Errorf("%d events stored from bad input", n)
	}
}

// PROTOCOL.md section 2: a challenge belongs to the match that is its own
// id; kinds 4421, 4422, 4424, 4425 and 4426 belong to every match a g tag
// names; nothing else belongs to a match.
func TestMatchIndexing(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	alice, bob := nostr.GenerateKey(), nostr.GenerateKey()
	chA := signed(t, alice, nostr.NewChallenge(nostr.GameChess, "", 1000))
	chB := signed(t, bob, nostr.NewChallenge(nostr.GameGomoku, "", 1001))
	// The challenge is listed first even when another event is stamped
	// earlier than it.
	early := signed(t, bob, nostr.NewAccept(chA.ID, alice.PublicKey(), 900))
	both := nostr.NewRequest(chA.ID, "", 1100)
	both.Tags = append(both.Tags, nostr.Tags{{"g", chB.ID}, {"g", chA.ID}}...)
	signed(t, alice, both)
	old := signed(t, alice, &nostr.Event{Kind: nostr.KindOldReferee, CreatedAt: 1200,
		Tags: nostr.Tags{{"g", chA.ID}}})
	note := signed(t, alice, &nostr.Event{Kind: 1, CreatedAt: 1200, Tags: nostr.Tags{{"g", chA.ID}}})
	junk := signed(t, alice, &nostr.Event{Kind: nostr.KindMove, CreatedAt: 1200,
		Tags: nostr.Tags{{"g", "not-a-match"}, {"g"}, {"g", strings.ToUpper(chA.ID)}}})
	resB := signed(t, bob, nostr.NewResult(chB.ID, nostr.Result{Result: "draw", Reason: "agreement"}, 1050))

	for _, ev := range []*nostr.Event{both, chA, old, early, note, resB, junk, chB} {
		if _, err := s.PutEvent(ctx, ev, nil, "wss://r", int64(ev.CreatedAt)); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		match string
		want  []string
	}{
		{chA.ID, []string{chA.ID, early.ID, both.ID}},
		{chB.ID, []string{chB.ID, resB.ID, both.ID}},
		{strings.Repeat("0", 64), nil},
		{"not-a-match", nil},
	}
	for _, tt := range tests {
		t.Run(tt.match[:8], func(t *testing.T) {
			got, err := s.MatchEvents(ctx, tt.match)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tt.want) {
				t.Errorf("got %v, want %v", ids(got), tt.want)
			}
		})
	}

	gotIDs, err := s.MatchIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := []string{chA.ID, chB.ID}
	slices.Sort(wantIDs)
	if !slices.Equal(gotIDs, wantIDs) {
		t.Errorf("MatchIDs = %v, want %v", gotIDs, wantIDs)
	}
	if n, m, err := s.Stats(ctx); err != nil || n != 8 || m != 2 {
		t.Errorf("Stats = %d, %d, %v; want 8, 2", n, m, err)
	}
}

func TestMatchesOf(t *testing.T) {
	k := nostr.GenerateKey()
	m1, m2 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	ch := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 1))
	tests := []struct {
		name string
		ev   *nostr.Event
		want []string
	}{
		{"nil", nil, nil},
		{"challenge is its own match", ch, []string{ch.ID}},
		{"challenge ignores g tags", &nostr.Event{ID: ch.ID, Kind: nostr.KindChallenge,
			Tags: nostr.Tags{{"g", m1}}}, []string{ch.ID}},
		{"accept", nostr.NewAccept(m1, k.PublicKey(), 1), []string{m1}},
		{"move", nostr.NewMove(m1, 1, "e2e4", 1), []string{m1}},
		{"result", nostr.NewResult(m1, nostr.Result{}, 1), []string{m1}},
		{"request", nostr.NewRequest(m1, "", 1), []string{m1}},
		{"ruling", nostr.NewRuling(m1, nostr.Result{}, 1), []string{m1}},
		{"two matches, one repeated", &nostr.Event{Kind: nostr.KindMove,
			Tags: nostr.Tags{{"g", m2}, {"g", m1}, {"g", m2}}}, []string{m2, m1}},
		{"old referee kind", &nostr.Event{Kind: nostr.KindOldReferee, Tags: nostr.Tags{{"g", m1}}}, nil},
		{"profile", &nostr.Event{Kind: nostr.KindProfile, Tags: nostr.Tags{{"g", m1}}}, nil},
		{"g values that are no event id", &nostr.Event{Kind: nostr.KindMove,
			Tags: nostr.Tags{{"g"}, {"g", ""}, {"g", strings.ToUpper(m1)}, {"g", m1[:63]}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchesOf(tt.ev); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAddRelay(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	ev := signed(t, nostr.GenerateKey(), nostr.NewChallenge(nostr.GameChess, "", 5))
	known, err := s.AddRelay(ctx, ev.ID, "wss://r1")
	if err != nil || known {
		t.Fatalf("AddRelay before the event: %v, %v", known, err)
	}
	if _, err := s.PutEvent(ctx, ev, nil, "", 5); err != nil {
		t.Fatal(err)
	}
	if known, err := s.AddRelay(ctx, ev.ID, "wss://r1"); err != nil || !known {
		t.Fatalf("AddRelay after the event: %v, %v", known, err)
	}
	se, _, err := s.Event(ctx, ev.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(se.Relays, []string{"wss://r1"}) {
		t.Errorf("relays = %q", se.Relays)
	}
	if _, ok, err := s.Event(ctx, strings.Repeat("0", 64)); ok || err != nil {
		t.Errorf("Event of an unknown id: %v, %v", ok, err)
	}
	if errors.Is(err, ErrNotFound) {
		t.Error("unexpected ErrNotFound")
	}
}

// TestReadsBack: readsBack holds exactly when MarshalEvent's bytes parse
// back to the event, which is what lets PutEvents skip parsing them.
func TestReadsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", " ", `"`, `\`, "\x00", "\n", "\x1f", "\x7f", "é", "✓", "😀", "\xff", "\xc3", "\xed\xa0\x80", "<"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(4) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	hex := func(n int) string { return strings.Repeat(string("0123456789abcdef"[rng.IntN(16)]), n) }
	passed := 0
	for i := range 3000 {
		ev := &nostr.Event{ID: hex(64), PubKey: hex(64), Sig: hex(128), Kind: rng.IntN(70000) - 100,
			CreatedAt: nostr.Timestamp(rng.Int64N(1<<40) - 1<<20), Content: str()}
		for range rng.IntN(3) {
			ev.Tags = append(ev.Tags, []string{str(), str()})
		}
		back, err := nostr.ParseEvent(nostr.MarshalEvent(ev))
		same := err == nil && sameEvent(back, ev)
		if ok := readsBack(ev) == nil; ok != same {
			t.Fatalf("event %d %+v: readsBack %v, parses back to it %v (%v)", i, ev, ok, same, err)
		}
		if same {
			passed++
		}
	}
	if passed < 300 || passed > 2700 {
		t.Errorf("%d of 3000 events read back: the generator does not try both sides", passed)
	}
}

// TestPutEventRawKept: the event's own marshaling, no raw at all, and
// another spelling of the event are kept as given and read back as it.
func TestPutEventRawKept(t *testing.T) {
	s := openTemp(t)
	k := nostr.GenerateKey()
	match := strings.Repeat("ab", 32)
	tests := []struct {
		name string
		ev   *nostr.Event
		raw  func(ev *nostr.Event) []byte
	}{
		{"nil", signed(t, k, nostr.NewMove(match, 1, "e2e4\n\"é\x01", 10)), func(*nostr.Event) []byte { return nil }},
		{"marshaled", signed(t, k, nostr.NewMove(match, 2, "e7e5", 11)), nostr.MarshalEvent},
		{"spaced", signed(t, k, nostr.NewMove(match, 3, "g1f3", 12)), func(ev *nostr.Event) []byte {
			return bytes.ReplaceAll(nostr.MarshalEvent(ev), []byte(`,"`), []byte(`, "`))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.raw(tt.ev)
			if _, err := s.PutEvent(t.Context(), tt.ev, raw, "wss://r", 1); err != nil {
				t.Fatal(err)
			}
			se, ok, err := s.Event(t.Context(), tt.ev.ID)
			if err != nil || !ok {
				t.Fatalf("Event: %v %v", ok, err)
			}
			want := raw
			if want == nil {
				want = nostr.MarshalEvent(tt.ev)
			}
			if !bytes.Equal(se.Raw, want) {
				t.Errorf("raw = %s, want %s", se.Raw, want)
			}
			if err := nostr.Verify(se.Event); err != nil || !sameEvent(se.Event, tt.ev) {
				t.Errorf("read back %+v: %v", se.Event, err)
			}
		})
	}
}

// TestReadsEventPastCreatedAtBound (issue 30, item 11): a store written
// before section 1 bounded created_at by 2^53-1 may hold an event past it.
// Reading its match still works (the fold, not the store, drops the
// event), so a stranger's one event cannot make a match unreadable.
func TestReadsEventPastCreatedAtBound(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	k := nostr.GenerateKey()
	ch := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 1000))
	ok := signed(t, k, nostr.NewMove(ch.ID, 1, "e2e4", 1001))
	past := signed(t, k, nostr.NewMove(ch.ID, 1, "d2d4", nostr.MaxCreatedAt+1))
	for _, ev := range []*nostr.Event{ch, ok} {
		if _, err := s.PutEvent(ctx, ev, nil, "wss://r", 2000); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.PutEvent(ctx, past, nil, "wss://r", 2000); err == nil {
		t.Fatal("a new event past the bound was stored")
	}
	// What an older store held: the row of ok rewritten as past.
	if _, err := s.w.ExecContext(ctx, `UPDATE events SET id = ?, created_at = ?, raw = ? WHERE id = ?`,
		past.ID, int64(past.CreatedAt), nostr.MarshalEvent(past), ok.ID); err != nil {
		t.Fatal(err)
	}
	evs, seen, err := s.MatchEventsSeen(ctx, ch.ID)
	if err != nil || len(evs) != 2 || evs[1].ID != past.ID || seen[past.ID] != 2000 {
		t.Fatalf("MatchEventsSeen: %v, %d events", err, len(evs))
	}
	stored, err := s.MatchEvents(ctx, ch.ID)
	if err != nil || len(stored) != 2 {
		t.Fatalf("MatchEvents: %v, %d events", err, len(stored))
	}
}

// Issue 39 item 4: Classify is the one check of an event on the ingest
// path. It refuses what PutEvents would, and sets Raw and Matches; a
// classified Incoming is stored as it is, checked and derived nothing
// again (here its event, made unsigned after the check, is written all
// the same: the check was Classify's), while one whose Event was replaced
// since is checked again.
func TestClassifyChecksOnce(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	k := nostr.GenerateKey()
	m := strings.Repeat("a", 64)
	bad := signed(t, k, nostr.NewMove(m, 1, "e2e4", 990))
	bad.Sig = "nope"
	if _, err := Classify(Incoming{Event: bad}); err == nil || !strings.Contains(err.Error(), "unsigned") {
		t.Fatalf("Classify of an unsigned event: %v", err)
	}
	ev := signed(t, k, nostr.NewMove(m, 1, "e2e4", 990))
	in, err := Classify(Incoming{Event: ev, Relay: "ws://r", SeenAt: 990})
	if err != nil || !in.Classified() || !slices.Equal(in.Matches, []string{m}) || !bytes.Equal(in.Raw, nostr.MarshalEvent(ev)) {
		t.Fatalf("Classify: %v, classified %v, matches %v", err, in.Classified(), in.Matches)
	}
	replaced := in
	replaced.Event = bad
	if _, err := s.PutEvents(ctx, []Incoming{replaced}); err == nil {
		t.Fatal("an Incoming whose event was replaced after Classify was not checked again")
	}
	ev.Sig = "nope" // after the check: PutEvents does not look again
	if news, err := s.PutEvents(ctx, []Incoming{in}); err != nil || !news[0] {
		t.Fatalf("a classified event was checked again: %v", err)
	}
	ch := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 990))
	ch.Sig = "nope"
	if added, _, err := s.HoldChallenges(ctx, []Incoming{{Event: ch}}, 1000, 0); err == nil || !strings.Contains(err.Error(), "unsigned") || added != 0 {
		t.Fatalf("HoldChallenges held an unsigned challenge it was given unclassified (%d, %v)", added, err)
	}
}
