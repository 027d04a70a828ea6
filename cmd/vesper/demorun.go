package main

import (
	"context"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/daemon"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/reveal"
	"vesper/store"
)

// demoRun is the demo's two agents at work: the relays they post to, the
// house that folds their match, and the clock they stamp events with.
type demoRun struct {
	ctx        context.Context // the game's two minutes
	relays     []string
	n          *daemon.Daemon
	alice, bob nostr.SecretKey
	game       string
	script     demoScript
	// now is the last created_at used: each event is stamped a second
	// after the one before, since fold order breaks created_at ties by
	// id, so same-second events could reorder.
	now int64
}

func (d *demoRun) tick() int64 { d.now++; return d.now }

// post signs ev with k and publishes it on the embedded relay.
func (d *demoRun) post(k nostr.SecretKey, ev *nostr.Event) error {
	if err := k.Sign(ev); err != nil {
		return err
	}
	if ok := relay.Accepted(relay.Publish(d.ctx, d.relays, ev, netTimeout)); len(ok) == 0 {
		return fail(exitRelays, "the embedded relay refused event %s", ev.ID)
	}
	return nil
}

// play runs the whole game between two fresh agents: profiles, challenge
// and accept, the moves with their talk, the signed results, and the
// reveals read back and verified. It returns the match id.
func (d *demoRun) play() (string, error) {
	d.alice, d.bob = nostr.GenerateKey(), nostr.GenerateKey()
	if err := d.postProfiles(); err != nil {
		return "", err
	}
	ch := nostr.NewChallenge(d.game, d.bob.PublicKey(), d.tick())
	if err := d.post(d.alice, ch); err != nil {
		return "", err
	}
	id := ch.ID
	say("alice challenged bob: match %s", id)
	if err := d.post(d.bob, nostr.NewAccept(id, d.alice.PublicKey(), d.tick())); err != nil {
		return "", err
	}
	say("bob accepted")
	pending, err := d.playMoves(id)
	if err != nil {
		return "", err
	}
	if err := d.finish(id); err != nil {
		return "", err
	}
	if err := d.reveal(id, pending); err != nil {
		return "", err
	}
	verified, err := demoVerified(d.ctx, d.relays, id)
	if err != nil {
		return "", err
	}
	say("reasoning revealed after the final result: %d of %d entries verified", verified, len(d.script.moves))
	return id, nil
}

func (d *demoRun) postProfiles() error {
	for _, p := range []struct {
		name, model string
		k           nostr.SecretKey
	}{{"alice (demo agent)", "demo-model-a", d.alice}, {"bob (demo agent)", "demo-model-b", d.bob}} {
		prof, err := nostr.NewProfile(nostr.Profile{Name: p.name, About: "a vesper demo agent",
			Agent: nostr.Agent{Model: p.model, Provider: "vesper demo", Harness: "vesper demo", Version: "1"}}, d.tick())
		if err != nil {
			return err
		}
		if err := d.post(p.k, prof); err != nil {
			return err
		}
	}
	return nil
}

// playMoves posts the demo's script with its talk. Each agent keeps its salts and
// texts until the result is final, as the seat's journal does (the demo's
// agents live in this process): pending, by agent pubkey.
func (d *demoRun) playMoves(id string) (pending map[string][]nostr.RevealEntry, err error) {
	pending = map[string][]nostr.RevealEntry{}
	for i, mv := range d.script.moves {
		k := d.alice
		if i%2 == 1 {
			k = d.bob
		}
		salt, talk := nostr.NewSalt(), d.script.talk[i]
		none, out := 0, float64(40+9*i)
		ev := nostr.WithTalk(nostr.NewMove(id, i+1, mv, d.tick()), nostr.Talk{Comment: talk.comment,
			Reasoning: nostr.ReasoningHash(salt, talk.reasoning), Attempts: &none, Usage: &nostr.Usage{OutputTokens: &out}})
		if err := d.post(k, ev); err != nil {
			return nil, err
		}
		pk := k.PublicKey()
		pending[pk] = append(pending[pk], nostr.RevealEntry{Event: ev.ID, Salt: salt, Text: talk.reasoning})
		say("ply %d: %s  %q", i+1, mv, talk.comment)
	}
	return pending, nil
}

// finish waits for the house to see the game over, has both agents sign
// the result, and waits for it to be final.
func (d *demoRun) finish(id string) error {
	s, err := waitState(d.ctx, d.n, id, func(s *match.State) bool { return s.Plies() == len(d.script.moves) && s.Over })
	if err != nil {
		return err
	}
	say("game over: %s wins by %s", s.Result, s.Reason)
	for _, k := range []nostr.SecretKey{d.alice, d.bob} {
		if err := d.post(k, nostr.NewResult(id, s.Computed(), d.tick())); err != nil {
			return err
		}
	}
	s, err = waitState(d.ctx, d.n, id, func(s *match.State) bool { return s.Final })
	if err != nil {
		return err
	}
	say("result final by %s (event %s)", s.FinalBy, s.FinalEvent)
	return nil
}

// reveal posts each agent's reasoning, all stamped at the same second.
func (d *demoRun) reveal(id string, pending map[string][]nostr.RevealEntry) error {
	at := d.tick()
	for _, k := range []nostr.SecretKey{d.alice, d.bob} {
		evs, err := nostr.NewReveal(id, pending[k.PublicKey()], at)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := d.post(k, ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// demoVerified reads the match and its reveals back from the relay, as
// any verifier would, and counts the reasoning that verifies.
func demoVerified(ctx context.Context, relays []string, id string) (int, error) {
	got, err := relay.Fetch(ctx, relays, append(relay.MatchFilters(id),
		gn.Filter{Kinds: []int{nostr.KindReveal}, Tags: gn.TagMap{nostr.MatchTag: {id}}}), netTimeout)
	if err != nil {
		return 0, fail(exitRelays, "reading the reveals back: %v", err)
	}
	var evs []*nostr.Event
	for _, r := range got {
		evs = append(evs, r.Event)
	}
	st, err := match.Fold(id, evs, nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range reveal.Check(st, evs).Entries {
		if e.Status == reveal.Verified {
			n++
		}
	}
	return n, nil
}

// waitAnalysis polls the store until the match's analysis is stored.
func waitAnalysis(ctx context.Context, st *store.Store, id string) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if _, ok, err := st.Analysis(ctx, id); err == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fail(exitFailure, "timed out waiting for the analysis of match %s", id)
		case <-t.C:
		}
	}
}

// waitProfiles polls the store until it holds every pubkey's profile.
func waitProfiles(ctx context.Context, st *store.Store, pubkeys ...string) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for _, pk := range pubkeys {
		for {
			if _, ok, err := st.Profile(ctx, pk); err == nil && ok {
				break
			}
			select {
			case <-ctx.Done():
				return fail(exitFailure, "timed out waiting for the profile of %s", pk)
			case <-t.C:
			}
		}
	}
	return nil
}

// waitState polls the daemon's state of a match until cond holds.
func waitState(ctx context.Context, n *daemon.Daemon, id string, cond func(*match.State) bool) (*match.State, error) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		// A final match lives in the store only: Load reads it there.
		if s, err := n.Load(ctx, id); err == nil && s != nil && cond(s) {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return nil, fail(exitFailure, "timed out waiting for the daemon to fold match %s", id)
		case <-t.C:
		}
	}
}
