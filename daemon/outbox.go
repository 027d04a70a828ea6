package daemon

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/nostr/relay/follow"
)

// The outbox model (NIP-65): the daemon reads the relay lists (kind
// 10002) of the players it follows and also follows their write relays,
// within the relay client's cap, so that a player who publishes only to
// its own relays is still verified. What those relays send goes through
// the same gate and the same store as everything else.

// maxLists bounds the relay lists kept: one per followed player, and the
// client follows only players of accepted matches.
const maxLists = 100_000

// relayLists holds the latest relay list of each followed author.
type relayLists struct {
	mu      sync.Mutex
	latest  map[string]*nostr.Event
	changed bool
	follow  []string // the relays followed for them, besides the configured ones
	// turn counts the turns taken, past the cap, by the players of equal
	// rank; turned is when the last one was taken (the daemon's clock).
	turn, turned int64
}

// turnEvery is how long the followed relays stay as they are while no
// relay list changes: past the cap, the players of equal rank then take
// their turn (issue 30: strangers' lists must not keep a new player's
// relay out for ever).
const turnEvery = 10 * 60

// add keeps ev if it is its author's newest list, as nostr.LatestRelayLists
// decides.
func (l *relayLists) add(ev *nostr.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.latest == nil {
		l.latest = map[string]*nostr.Event{}
	}
	old := l.latest[ev.PubKey]
	if old != nil && nostr.LatestRelayLists([]*nostr.Event{old, ev})[ev.PubKey].Event != ev.ID {
		return
	}
	if old == nil && len(l.latest) >= maxLists {
		return
	}
	l.latest[ev.PubKey] = ev
	l.changed = true
}

// followed returns the relays followed for the players' lists.
func (l *relayLists) followed() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.follow)
}

// refollow points the client at the write relays of the lists, when they
// changed since the last call.
func (n *Daemon) refollow(client *relay.Client) {
	l := &n.lists
	now := n.clock()
	l.mu.Lock()
	if !l.changed && now-l.turned < turnEvery {
		l.mu.Unlock()
		return
	}
	if !l.changed {
		l.turn++
	}
	l.changed, l.turned = false, now
	turn := l.turn
	lists := make([]*nostr.Event, 0, len(l.latest))
	for _, ev := range l.latest {
		lists = append(lists, ev)
	}
	l.mu.Unlock()
	// A stranger's list must not point the daemon at services behind its
	// firewall, unless the operator said so (--allow-private-relays): a
	// local configured relay is no such permission (issue 30).
	local := n.allowPrivate
	slots := max(1, cmp.Or(n.maxRelays, relay.DefaultMaxRelays)-len(n.relays))
	want := follow.OutboxRelays(lists, follow.OutboxOptions{Exclude: n.relays, AllowLocal: local,
		Max: slots, Priority: n.playing(), Rotate: int(turn) * slots})
	got := client.SetFollowed(want)
	l.mu.Lock()
	l.follow = got
	l.mu.Unlock()
	n.log.Info("following the players' write relays (NIP-65)", "lists", len(lists), "relays", len(got), "wanted", len(want))
}

// playing ranks players for following their relays: those of the kept
// accepted matches where both sides have moved come first (a stranger
// filling relay lists cannot make moves in a real player's match).
func (n *Daemon) playing() func(pubkey string) int {
	n.mu.Lock()
	real := map[string]bool{}
	for _, s := range n.states {
		if s.Accepted && len(s.Moves) >= 2 {
			real[s.First], real[s.Second] = true, true
		}
	}
	n.mu.Unlock()
	return func(pubkey string) int {
		if real[pubkey] {
			return 1
		}
		return 0
	}
}

// relayListDuty publishes the daemon's own relay list (kind 10002): the
// relays it reads and writes, once per set of relays.
func (n *Daemon) relayListDuty(ctx context.Context) error {
	if n.self == "" || len(n.relays) == 0 {
		return nil
	}
	sum := sha256.Sum256([]byte(strings.Join(n.relays, "\n")))
	duty := "relaylist:" + n.self + ":" + hex.EncodeToString(sum[:8])
	if has, err := n.st.OutboxHas(ctx, duty); err != nil || has {
		return err
	}
	ev, err := nostr.NewRelayList(n.relays, n.relays, n.clock())
	if err != nil {
		return err
	}
	if err := n.key.Sign(ev); err != nil {
		return err
	}
	_, _, err = n.st.OutboxAdd(ctx, duty, ev)
	return err
}
