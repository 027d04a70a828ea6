package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"vesper/nostr"
)

// earlyMax is how long before its created_at a live event may be
// published: well inside rule 5's 300 seconds, so that a verifier that
// first sees the event a minute later than the simulation published it
// still counts it as every other verifier does.
const earlyMax = 240

// Delivery is one event to publish: when, and to which relays.
type Delivery struct {
	Event *nostr.Event
	// At is the wall time (unix seconds) to publish at; 0 means with the
	// history, before the verifier starts.
	At     int64
	Relays []int // member indexes, at least one
	Twice  bool  // published a second time, as by an agent that retries
}

// Plan spreads a season over n relays. Each event goes to a random
// non-empty subset of them (about half), so that no relay has everything
// and most events are on more than one.
//
// Events stamped up to the season's End, and future-dated ones, are
// history: they are on the relays before the verifier starts, as when a
// verifier joins a running network. The live tail is published when its
// created_at comes (or a little before, see earlyMax), some of it up to
// half a minute late (an agent on a flaky link). History must not be
// published while a verifier follows the relays: a relay client
// backfills from its cursor minus a safety margin (15 minutes in
// nostr/relay), so an event stamped days ago but first published while
// the verifier was down or disconnected would never be asked for.
func Plan(s *Season, n int, seed uint64) []Delivery {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	future := map[string]bool{}
	for _, m := range s.Matches {
		for _, id := range m.Future {
			future[id] = true
		}
	}
	end := s.Config.End
	span := int64(0) // how far the live tail's stamps reach past End
	for _, m := range s.Matches {
		for _, ev := range m.Events {
			if t := int64(ev.CreatedAt); t > end && !future[ev.ID] {
				span = max(span, t-end)
			}
		}
	}
	// Stamps must strictly increase within a match, so a match with many
	// events after End stretches the tail past Config.Live; such events
	// are published early, up to earlyMax before their created_at (a
	// clock a little fast), which rule 5 accepts (up to 300 s).
	live := max(1, s.Config.liveSeconds())
	var out []Delivery
	for _, ev := range s.Events() {
		d := Delivery{Event: ev, Twice: r.Float64() < 0.05}
		if t := int64(ev.CreatedAt); t > end && !future[ev.ID] {
			d.At = t
			if span > live {
				d.At = max(end+1+(t-end)*live/span, t-earlyMax)
			}
			if r.Float64() < 0.15 {
				d.At += 1 + r.Int64N(30)
			}
		}
		for i := range n {
			if r.Float64() < 0.45 {
				d.Relays = append(d.Relays, i)
			}
		}
		if len(d.Relays) == 0 {
			d.Relays = []int{r.IntN(n)}
		}
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(a, b Delivery) int { return cmp.Compare(a.At, b.At) })
	return out
}
