// Package testkit builds real signed protocol events for tests: players with
// deterministic keys, and a match builder that stamps events with chosen
// times. It is used by tests only.
package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"vesper/nostr"
)

// Key returns a deterministic secret key for a name, so test output is
// stable across runs.
func Key(name string) nostr.SecretKey {
	for i := 0; ; i++ {
		h := sha256.Sum256([]byte(fmt.Sprintf("vesper-test-%s-%d", name, i)))
		k, err := nostr.ParseSecretKey(hex.EncodeToString(h[:]))
		if err == nil {
			return k
		}
	}
}

// Sign signs ev with k and panics on failure (test input only).
func Sign(k nostr.SecretKey, ev *nostr.Event) *nostr.Event {
	if err := k.Sign(ev); err != nil {
		panic(err)
	}
	return ev
}

// Match builds the events of one match between two keys.
type Match struct {
	A, B   nostr.SecretKey // challenger (first) and acceptor (second)
	ID     string
	Events []*nostr.Event
	T      int64 // the challenge's created_at
}

// NewMatch signs a challenge by a at time t (invitee "" for open).
func NewMatch(a, b nostr.SecretKey, game, invitee string, t int64) *Match {
	ch := Sign(a, nostr.NewChallenge(game, invitee, t))
	return &Match{A: a, B: b, ID: ch.ID, Events: []*nostr.Event{ch}, T: t}
}

// Add signs ev with k and appends it.
func (m *Match) Add(k nostr.SecretKey, ev *nostr.Event) *nostr.Event {
	Sign(k, ev)
	m.Events = append(m.Events, ev)
	return ev
}

// Accept adds B's accept at t.
func (m *Match) Accept(t int64) *nostr.Event {
	return m.Add(m.B, nostr.NewAccept(m.ID, m.A.PublicKey(), t))
}

// Move adds a move by k at ply, time t.
func (m *Match) Move(k nostr.SecretKey, ply int, move string, t int64) *nostr.Event {
	return m.Add(k, nostr.NewMove(m.ID, ply, move, t))
}

// Play adds moves alternately from ply 1 (A first), one every step seconds
// starting at t, and returns the time of the last one.
func (m *Match) Play(moves []string, t, step int64) int64 {
	for i, mv := range moves {
		k := m.A
		if i%2 == 1 {
			k = m.B
		}
		m.Move(k, i+1, mv, t)
		if i < len(moves)-1 {
			t += step
		}
	}
	return t
}

// Result adds a result (or claim) by k.
func (m *Match) Result(k nostr.SecretKey, r nostr.Result, t int64) *nostr.Event {
	return m.Add(k, nostr.NewResult(m.ID, r, t))
}

// Request adds an arbitration request by k.
func (m *Match) Request(k nostr.SecretKey, t int64) *nostr.Event {
	return m.Add(k, nostr.NewRequest(m.ID, "please rule", t))
}

// Ruling adds a ruling by k.
func (m *Match) Ruling(k nostr.SecretKey, r nostr.Result, t int64) *nostr.Event {
	return m.Add(k, nostr.NewRuling(m.ID, r, t))
}
