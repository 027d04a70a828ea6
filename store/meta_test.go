package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

func TestSummaries(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	a, b := strings.Repeat("a", 64), strings.Repeat("b", 64)
	p1, p2, p3 := strings.Repeat("1", 64), strings.Repeat("2", 64), strings.Repeat("3", 64)
	mk := func(match, first, second, status string, final bool, at int64) Summary {
		j, _ := json.Marshal(map[string]any{"match": match, "status": status, "final": final})
		return Summary{Match: match, Game: "chess", First: first, Second: second,
			Status: status, Final: final, UpdatedAt: at, JSON: j}
	}
	if _, ok, err := s.Summary(ctx, b); ok || err != nil {
		t.Fatalf("Summary before any: %v, %v", ok, err)
	}
	puts := []Summary{
		mk(b, p1, p2, "active", false, 10),
		mk(a, p3, "", "open", false, 11),
		mk(b, p1, p2, "over", true, 12), // replaces the first
	}
	for _, sum := range puts {
		if err := s.PutSummary(ctx, sum); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := s.Summary(ctx, b)
	if err != nil || !ok {
		t.Fatalf("Summary: %v, %v", ok, err)
	}
	if want := puts[2]; got.Status != want.Status || !got.Final || got.UpdatedAt != 12 ||
		string(got.JSON) != string(want.JSON) || got.First != p1 || got.Second != p2 {
		t.Errorf("Summary = %+v, want %+v", got, want)
	}
	all, err := s.Summaries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Match != a || all[1].Match != b {
		t.Errorf("Summaries not two by match id: %+v", all)
	}
	tests := []struct {
		player string
		want   []string
	}{
		{p1, []string{b}},
		{p2, []string{b}},
		{p3, []string{a}},
		{strings.Repeat("4", 64), nil},
	}
	for _, tt := range tests {
		sums, err := s.SummariesOf(ctx, tt.player)
		if err != nil {
			t.Fatal(err)
		}
		var gotM []string
		for _, x := range sums {
			gotM = append(gotM, x.Match)
		}
		if !slices.Equal(gotM, tt.want) {
			t.Errorf("SummariesOf(%s…) = %v, want %v", tt.player[:4], gotM, tt.want)
		}
	}
	for name, bad := range map[string]Summary{
		"no match id":  {JSON: []byte(`{}`)},
		"invalid JSON": {Match: a, JSON: []byte(`{"match":`)},
		"no JSON":      {Match: a},
	} {
		if err := s.PutSummary(ctx, bad); err == nil {
			t.Errorf("%s: PutSummary accepted it", name)
		}
	}
}

func TestCursorOnlyMovesForward(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	steps := []struct {
		relay string
		set   int64
		want  int64
	}{
		{"wss://a", 100, 100},
		{"wss://a", 50, 100},
		{"wss://a", 100, 100},
		{"wss://a", 101, 101},
		{"wss://b", 7, 7},
		{"wss://a", 0, 101},
	}
	for i, st := range steps {
		if err := s.SetCursor(ctx, st.relay, st.set); err != nil {
			t.Fatal(err)
		}
		got, err := s.Cursor(ctx, st.relay)
		if err != nil {
			t.Fatal(err)
		}
		if got != st.want {
			t.Errorf("step %d: cursor of %s = %d after setting %d, want %d", i, st.relay, got, st.set, st.want)
		}
	}
	if got, err := s.Cursor(ctx, "wss://never"); got != 0 || err != nil {
		t.Errorf("unknown relay: %d, %v; want 0", got, err)
	}
	all, err := s.Cursors(ctx)
	if err != nil || len(all) != 2 || all["wss://a"] != 101 || all["wss://b"] != 7 {
		t.Errorf("Cursors = %v, %v", all, err)
	}
	if err := s.SetCursor(ctx, "", 5); err == nil {
		t.Error("SetCursor accepted an empty relay")
	}
}

func TestProfileNewestWins(t *testing.T) {
	k := nostr.GenerateKey()
	prof := func(at int64, name string) *nostr.Event {
		return signed(t, k, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(at),
			Content: `{"name":"` + name + `"}`})
	}
	old, mid, newest := prof(100, "old"), prof(200, "mid"), prof(300, "new")
	tieA, tieB := prof(400, "tie-a"), prof(400, "tie-b")
	lower, higher := tieA, tieB
	if higher.ID < lower.ID {
		lower, higher = higher, lower
	}
	tests := []struct {
		name  string
		order []*nostr.Event
		want  *nostr.Event
	}{
		{"in order", []*nostr.Event{old, mid, newest}, newest},
		{"reversed", []*nostr.Event{newest, mid, old}, newest},
		{"shuffled with repeat", []*nostr.Event{mid, newest, old, newest}, newest},
		{"same second: lower id", []*nostr.Event{higher, lower}, lower},
		{"same second, other order", []*nostr.Event{lower, higher}, lower},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTemp(t)
			for _, ev := range tt.order {
				if err := s.PutProfile(t.Context(), ev); err != nil {
					t.Fatal(err)
				}
			}
			got, ok, err := s.Profile(t.Context(), k.PublicKey())
			if err != nil || !ok {
				t.Fatalf("Profile: %v, %v", ok, err)
			}
			if got.ID != tt.want.ID || got.Content != tt.want.Content {
				t.Errorf("got %s %s, want %s %s", got.ID[:8], got.Content, tt.want.ID[:8], tt.want.Content)
			}
			all, err := s.Profiles(t.Context())
			if err != nil || len(all) != 1 {
				t.Errorf("Profiles: %d, %v", len(all), err)
			}
		})
	}
	s := openTemp(t)
	if _, ok, err := s.Profile(t.Context(), k.PublicKey()); ok || err != nil {
		t.Errorf("Profile of nobody: %v, %v", ok, err)
	}
	notProfile := signed(t, k, nostr.NewChallenge(nostr.GameChess, "", 1))
	if err := s.PutProfile(t.Context(), notProfile); err == nil {
		t.Error("PutProfile accepted a challenge")
	}
	if err := s.PutProfile(t.Context(), nil); err == nil {
		t.Error("PutProfile accepted nil")
	}
}

// PROTOCOL.md section 3: everything the daemon publishes is recorded
// first, so a restart neither loses nor repeats a publication.
func TestOutboxOneEventPerDuty(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	k := nostr.GenerateKey()
	match := strings.Repeat("c", 64)
	res := nostr.Result{Result: "first", Reason: "timeout", Plies: 3, FinalHash: strings.Repeat("d", 64)}
	claim := signed(t, k, nostr.NewResult(match, res, 1000))
	claimAgain := signed(t, k, nostr.NewResult(match, res, 1060)) // a restart decides it again
	move := signed(t, k, nostr.NewMove(match, 4, "e7e5", 990))

	added, _, err := s.OutboxAdd(ctx, "claim:"+match, claim)
	if err != nil || !added {
		t.Fatalf("first add: %v, %v", added, err)
	}
	added, existing, err := s.OutboxAdd(ctx, "claim:"+match, claimAgain)
	if err != nil || added {
		t.Fatalf("second add: %v, %v", added, err)
	}
	if existing.Event.ID != claim.ID || existing.Duty != "claim:"+match || existing.CreatedAt != 1000 {
		t.Errorf("second add returned %+v, want the first claim", existing)
	}
	if added, _, err := s.OutboxAdd(ctx, "move:"+match+":4", move); err != nil || !added {
		t.Fatalf("move add: %v, %v", added, err)
	}

	pending := func() []string {
		t.Helper()
		items, err := s.OutboxPending(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range items {
			out = append(out, it.Duty)
		}
		return out
	}
	// The order recorded, not created_at: the move was signed earlier.
	if got, want := pending(), []string{"claim:" + match, "move:" + match + ":4"}; !slices.Equal(got, want) {
		t.Fatalf("pending = %v, want %v", got, want)
	}

	if err := s.OutboxAttempt(ctx, "claim:"+match, "no relay answered"); err != nil {
		t.Fatal(err)
	}
	if err := s.OutboxMarkSent(ctx, "claim:"+match, []string{"wss://b", "wss://a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.OutboxMarkSent(ctx, "claim:"+match, []string{"wss://a", "wss://c"}); err != nil {
		t.Fatal(err)
	}
	if got, want := pending(), []string{"move:" + match + ":4"}; !slices.Equal(got, want) {
		t.Errorf("pending after sending the claim = %v, want %v", got, want)
	}
	it, ok, err := s.OutboxGet(ctx, "claim:"+match)
	if err != nil || !ok {
		t.Fatalf("OutboxGet: %v, %v", ok, err)
	}
	want := OutboxItem{Duty: "claim:" + match, CreatedAt: 1000, Attempts: 3,
		SentTo: []string{"wss://a", "wss://b", "wss://c"}, Done: true, LastError: "no relay answered"}
	if it.Duty != want.Duty || it.CreatedAt != want.CreatedAt || it.Attempts != want.Attempts ||
		!slices.Equal(it.SentTo, want.SentTo) || it.Done != want.Done || it.LastError != want.LastError {
		t.Errorf("claim = %+v, want %+v", it, want)
	}
	if it.Event.ID != claim.ID || nostr.Verify(it.Event) != nil {
		t.Errorf("claim event read back differs or does not verify")
	}

	// Done is done: re-adding the duty still returns the recorded item.
	added, existing, err = s.OutboxAdd(ctx, "claim:"+match, claimAgain)
	if err != nil || added || !existing.Done || existing.Event.ID != claim.ID {
		t.Errorf("re-add after done: %v, %+v, %v", added, existing, err)
	}
	all, err := s.Outbox(ctx)
	if err != nil || len(all) != 2 {
		t.Errorf("Outbox: %d items, %v", len(all), err)
	}
	for duty, want := range map[string]bool{"claim:" + match: true, "move:" + match + ":4": true, "ruling:x": false} {
		if got, err := s.OutboxHas(ctx, duty); err != nil || got != want {
			t.Errorf("OutboxHas(%s) = %v, %v; want %v", duty, got, err, want)
		}
	}

	if err := s.OutboxAttempt(ctx, "ruling:x", "e"); !errors.Is(err, ErrNotFound) {
		t.Errorf("attempt on an unknown duty: %v, want ErrNotFound", err)
	}
	if err := s.OutboxMarkSent(ctx, "ruling:x", []string{"wss://a"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("mark sent of an unknown duty: %v, want ErrNotFound", err)
	}
	if err := s.OutboxMarkSent(ctx, "move:"+match+":4", nil); err == nil {
		t.Error("marked sent to no relay")
	}
	tampered := *move
	tampered.Content = "e7e6"
	bad := map[string]*nostr.Event{
		"unsigned": nostr.NewMove(match, 6, "a7a6", 1),
		"tampered": &tampered,
		"nil":      nil,
	}
	for name, ev := range bad {
		if added, _, err := s.OutboxAdd(ctx, "bad:"+name, ev); err == nil || added {
			t.Errorf("%s: OutboxAdd = %v, %v; want an error", name, added, err)
		}
	}
	if _, _, err := s.OutboxAdd(ctx, "", move); err == nil {
		t.Error("OutboxAdd accepted an empty duty")
	}
}

// TestOutboxCommitsAreSynced: the writer runs with synchronous=NORMAL, and
// only an outbox record (published once recorded) commits with FULL; the
// connection is back at NORMAL after it, so events stay cheap to store.
func TestOutboxCommitsAreSynced(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	level := func() int {
		t.Helper()
		var v int
		if err := s.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	const normal, full = 1, 2
	if got := level(); got != normal {
		t.Fatalf("writer synchronous = %d, want NORMAL (%d)", got, normal)
	}
	k := nostr.GenerateKey()
	match := strings.Repeat("c", 64)
	move := signed(t, k, nostr.NewMove(match, 4, "e7e5", 990))
	if _, err := s.PutEvents(ctx, []Incoming{{Event: move, SeenAt: 990}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCursor(ctx, "wss://r.example", 990); err != nil {
		t.Fatal(err)
	}
	if got := s.synced.Load(); got != 0 {
		t.Fatalf("%d synced commits for an event and a cursor, want 0", got)
	}
	if _, _, err := s.OutboxAdd(ctx, "move:"+match+":4", move); err != nil {
		t.Fatal(err)
	}
	if got := s.synced.Load(); got != 1 {
		t.Fatalf("%d synced commits after an outbox record, want 1", got)
	}
	if got := level(); got != normal {
		t.Fatalf("writer synchronous = %d after an outbox record, want NORMAL again", got)
	}
	var inside int
	if err := s.writeSynced(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&inside)
	}); err != nil || inside != full {
		t.Fatalf("synchronous inside writeSynced = %d (%v), want FULL (%d)", inside, err, full)
	}
}

// TestCheckpointsRunInTheBackground: the writer leaves checkpoints (which
// fsync and may take tens of milliseconds) to a connection of its own until
// the WAL is large, and that connection copies written frames back soon.
func TestCheckpointsRunInTheBackground(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	var pages int
	if err := s.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&pages); err != nil || pages != writerCheckpointPages {
		t.Fatalf("writer wal_autocheckpoint = %d (%v), want %d", pages, err, writerCheckpointPages)
	}
	k := nostr.GenerateKey()
	ev := signed(t, k, nostr.NewMove(strings.Repeat("c", 64), 1, "e2e4", 990))
	if _, err := s.PutEvents(ctx, []Incoming{{Event: ev, SeenAt: 990}}); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "a background checkpoint to copy the write", 20*checkpointEvery,
		func() bool { return s.checkpoints.Load() > 0 })
}
