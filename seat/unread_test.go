package seat

import (
	"slices"
	"testing"
	"time"

	"vesper/internal/sim"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// TestUnreadMatchIsHeld: a followed match whose history no relay answered
// whole (the paged read timed out on a busy host) is not folded from the
// events the live subscription brought, which can show a finished game as
// a clock run out; once its history is read it folds and emits. Without
// the hold the first evaluate emits at once.
func TestUnreadMatchIsHeld(t *testing.T) {
	end := time.Now().Unix() - 3600
	s, err := sim.Generate(sim.Config{Seed: 7, Agents: 3, Matches: 6, Days: 5, End: end})
	if err != nil {
		t.Fatal(err)
	}
	me := s.Keys[0]
	var id string
	var evs []relay.Received
	for _, m := range s.Matches {
		for _, ev := range m.Events {
			if ev.PubKey == me.PublicKey() {
				id = m.ID
			}
		}
		if id != "" {
			for _, ev := range m.Events {
				evs = append(evs, relay.Received{Event: ev})
			}
			break
		}
	}
	if id == "" {
		t.Fatal("the season has no match of the key")
	}
	seat := &Seat{Relays: []string{"ws://127.0.0.1:1"}, Key: me}
	var got []string
	st := &streamer{s: seat, me: seat.Me(), emit: func(ev StreamEvent) { got = append(got, ev.Match+":"+ev.Type) },
		kick: make(chan struct{}, 1), events: map[string]*nostr.Event{}, seen: map[string]int64{}, byMatch: map[string][]string{},
		follow: map[string]bool{id: true}, last: map[string]string{}, finalAtStart: map[string]bool{}, due: map[string]int64{},
		reported: map[string]bool{}, read: map[string]bool{}, explicit: []string{id}}
	for _, r := range evs {
		st.receive(r)
	}
	st.evaluate()
	if len(got) > 0 {
		t.Fatalf("an unread match emitted %v", got)
	}
	st.mu.Lock()
	st.read[id] = true
	st.dirty = append(st.dirty, id)
	st.mu.Unlock()
	st.evaluate()
	if !slices.ContainsFunc(got, func(s string) bool { return len(s) > len(id) && s[:len(id)] == id }) {
		t.Fatalf("the match, once read, emitted nothing: %v", got)
	}
}
