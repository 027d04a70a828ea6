package seat

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/follow"
)

func norm(u string) string { return gn.NormalizeURL(u) }

// TestSeatInvitationReachesInboxRelay (issue 19, NIP-65): each player
// reads one relay, the other's is not in its configuration, and each
// player's relay list is on the other's relay; the invitation reaches the
// invitee's read relay, and the accept the challenger's.
func TestSeatInvitationReachesInboxRelay(t *testing.T) {
	ctx := context.Background()
	home, inbox := startRelay(t), startRelay(t)
	a, b := fastSeats(nil, 5*time.Second)
	a.Relays, b.Relays = []string{home.URL()}, []string{inbox.URL()}
	// Loopback relays: the operator's explicit permission (issue 30).
	a.AllowPrivateRelays, b.AllowPrivateRelays = true, true

	// b's list, on home where a looks it up: b reads and writes inbox.
	listB := *b
	listB.Relays = []string{home.URL()}
	rep, err := listB.RelayList(ctx, []string{inbox.URL()}, []string{inbox.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kind != nostr.KindRelayList || !home.Has(rep.Event) || !inbox.Has(rep.Event) {
		t.Fatalf("relay list %+v not on both relays", rep)
	}
	// a's list, on inbox where b looks it up: a reads and writes home.
	listA := *a
	listA.Relays = []string{inbox.URL()}
	if _, err := listA.RelayList(ctx, []string{home.URL()}, []string{home.URL()}); err != nil {
		t.Fatal(err)
	}

	ch, err := a.Challenge(ctx, "chess", b.Me())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ch.Inbox, []string{norm(inbox.URL())}) || !inbox.Has(ch.Match) {
		t.Fatalf("invitation inbox %v, on the invitee's relay: %v", ch.Inbox, inbox.Has(ch.Match))
	}
	if !slices.Contains(ch.Accepted, norm(inbox.URL())) {
		t.Errorf("accepted %v, want the invitee's read relay among them", ch.Accepted)
	}
	games, err := b.Games(ctx)
	if err != nil || len(games.Invitations) != 1 || games.Invitations[0].Match != ch.Match {
		t.Fatalf("invitee's games: %+v %v", games, err)
	}
	acc, err := b.Accept(ctx, ch.Match)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(acc.Inbox, []string{norm(home.URL())}) || !home.Has(acc.Event) {
		t.Fatalf("accept inbox %v, on the challenger's relay: %v", acc.Inbox, home.Has(acc.Event))
	}
	snap, err := a.Read(ctx, ch.Match)
	if err != nil || !snap.State.Accepted {
		t.Fatalf("the challenger does not see the accept: %v", err)
	}
	// A move tags no one: it goes to the seat's relays only.
	mv, err := a.Move(ctx, ch.Match, "e4")
	if err != nil || len(mv.Inbox) != 0 || inbox.Has(mv.Event) {
		t.Errorf("move: %+v %v", mv, err)
	}
}

// TestSeatNeventHints (NIP-19): the relays an nevent names are asked
// too; status prints an nevent naming the relays that hold the match; a
// match found nowhere names the relays searched.
func TestSeatNeventHints(t *testing.T) {
	ctx := context.Background()
	there, here := startRelay(t), startRelay(t)
	a := &Seat{Relays: []string{there.URL()}, Key: testkit.Key("seat-a"), Timeout: testkit.Scale(5 * time.Second), AllowPrivateRelays: true}
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	if hints := neventRelays(t, ch.Nevent); !slices.Equal(hints, []string{norm(there.URL())}) {
		t.Errorf("challenge nevent hints %v, want the relay that took it", hints)
	}
	b := &Seat{Relays: []string{here.URL()}, Timeout: testkit.Scale(5 * time.Second), AllowPrivateRelays: true}
	_, err = b.Read(ctx, ch.Match)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), "not found on "+norm(here.URL())) {
		t.Fatalf("read without the hint: %v, want not found naming %s", err, here.URL())
	}
	snap, err := b.Read(ctx, ch.Nevent)
	if err != nil {
		t.Fatalf("read with the nevent's hint: %v", err)
	}
	st := snap.Status("", snap.At)
	if hints := neventRelays(t, st.Nevent); !slices.Equal(hints, []string{norm(there.URL())}) {
		t.Errorf("status nevent hints %v, want the relay holding the match", hints)
	}
	if id, _ := nostr.ParseEventRef(st.Nevent); id != ch.Match {
		t.Errorf("status nevent names %s, want %s", id, ch.Match)
	}
	wctx, cancel := context.WithTimeout(ctx, testkit.Scale(60*time.Second))
	defer cancel()
	bk := &Seat{Relays: b.Relays, Key: testkit.Key("seat-b"), Timeout: testkit.Scale(5 * time.Second), AllowPrivateRelays: true}
	// The wait runs out (nothing wakes this key), after the hinted relay's
	// answer; 3 s leaves room for that answer on a busy machine.
	woke, err := bk.Wait(wctx, ch.Nevent, WaitOptions{Timeout: testkit.Scale(3 * time.Second)})
	if err != nil || woke.Status.Match != ch.Match {
		t.Fatalf("wait with the nevent's hint: %+v %v", woke, err)
	}
	_, err = bk.Wait(wctx, ch.Match, WaitOptions{Timeout: testkit.Scale(5 * time.Second)})
	if !errors.As(err, &nf) || !slices.Equal(nf.Searched, []string{norm(here.URL())}) {
		t.Errorf("wait without the hint: %v (searched %v)", err, nf)
	}
}

// TestSeatNprofileHints: an invitee given as nprofile, with no relay list,
// gets the invitation on the profile's hint relays.
func TestSeatNprofileHints(t *testing.T) {
	ctx := context.Background()
	home, theirs := startRelay(t), startRelay(t)
	a := &Seat{Relays: []string{home.URL()}, Key: testkit.Key("seat-a"), Timeout: testkit.Scale(5 * time.Second), AllowPrivateRelays: true}
	invitee := testkit.Key("seat-b").PublicKey()
	np, err := nip19.EncodeProfile(invitee, []string{theirs.URL(), "https://not-a-relay.example"})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := a.Challenge(ctx, "chess", np)
	if err != nil {
		t.Fatal(err)
	}
	if !theirs.Has(ch.Match) || !slices.Equal(ch.Inbox, []string{norm(theirs.URL())}) {
		t.Errorf("inbox %v; on the hint relay: %v", ch.Inbox, theirs.Has(ch.Match))
	}
	if inv := ch.Status.Invitee; inv == nil || *inv != invitee {
		t.Errorf("invitee %v, want %s", inv, invitee)
	}
	if _, err := a.Challenge(ctx, "chess", "nprofile1qqqq"); err == nil {
		t.Error("a bad nprofile was accepted")
	}
}

func neventRelays(t *testing.T, ne string) []string {
	t.Helper()
	_, v, err := nip19.Decode(ne)
	if err != nil {
		t.Fatalf("nevent %q: %v", ne, err)
	}
	return v.(gn.EventPointer).Relays
}

// TestSeatInboxBounded: at most MaxInbox of the tagged player's read
// relays, and none the seat publishes to anyway.
func TestSeatInboxBounded(t *testing.T) {
	ctx := context.Background()
	home := startRelay(t)
	b := testkit.Key("seat-b")
	reads := []string{home.URL(), "ws://127.0.0.1:1", "ws://127.0.0.1:2", "ws://127.0.0.1:3", "ws://127.0.0.1:4"}
	ev, err := nostr.NewRelayList(reads, nil, time.Now().Unix())
	if err != nil {
		t.Fatal(err)
	}
	if err := home.Publish(ctx, testkit.Sign(b, ev)); err != nil {
		t.Fatal(err)
	}
	a := &Seat{Relays: []string{home.URL()}, Key: testkit.Key("seat-a"), Timeout: testkit.Scale(10 * time.Second), AllowPrivateRelays: true}
	got := a.inbox(ctx, b.PublicKey(), nil)
	if want := []string{"ws://127.0.0.1:1", "ws://127.0.0.1:2", "ws://127.0.0.1:3"}; !slices.Equal(got, want) {
		t.Errorf("inbox %v, want %v", got, want)
	}
	if got := follow.InboxRelays([]*nostr.Event{testkit.Sign(b, ev)}, b.PublicKey(), 2, false); len(got) != 0 {
		t.Errorf("local read relays used without a local relay of our own: %v", got)
	}
}
