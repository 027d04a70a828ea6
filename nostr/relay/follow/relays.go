package follow

import (
	"cmp"
	"slices"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
)

// DefaultPerPlayer is OutboxOptions.PerPlayer's default: NIP-65 asks
// authors to keep their lists small, and two or three of a player's write
// relays find its events when one is down.
const DefaultPerPlayer = 3

// OutboxOptions tune OutboxRelays.
type OutboxOptions struct {
	// PerPlayer is how many write relays of each player's list are used,
	// the first ones in the list's order [DefaultPerPlayer].
	PerPlayer int
	// Exclude are relays read anyway (relay.Config.Relays): they still count
	// among a player's PerPlayer, since they find its events, but are not
	// returned.
	Exclude []string
	// AllowLocal keeps relays on this machine or a private network
	// (nostr.IsLocalRelay), which are otherwise dropped: a stranger's list
	// must not point the daemon at services behind its firewall. Tests on
	// loopback set it.
	AllowLocal bool
	// Max caps the relays returned [0: no cap]; relay.Config.MaxRelays caps
	// again when they are followed.
	Max int
	// Priority ranks players, higher first [nil: all equal]: the daemon
	// puts the players of accepted matches with real play first, so that
	// players who only fill relay lists cannot crowd them out.
	Priority func(pubkey string) int
	// Rotate turns the order of players of equal priority by that many
	// places: past the cap, successive calls with a growing Rotate give
	// each player its turn.
	Rotate int
}

// OutboxRelays picks the relays to follow for players' events (NIP-65's
// outbox model) from their relay lists: of each author's latest kind
// 10002 among lists (checked events; other kinds are ignored), the first
// PerPlayer usable write relays. Slots are shared out by player, not by
// votes (issue 30: 400 events of strangers' lists filled every slot): in
// the order of Priority, then Rotate, each player gets one relay, the one
// of its relays named by the most players, unless one of its relays is
// already chosen or excluded; then each gets a second, and so on. The
// result is in that order, deduplicated, so that a cap keeps one relay
// for as many players as it can. It is a pure function of its arguments.
func OutboxRelays(lists []*nostr.Event, opts OutboxOptions) []string {
	per := opts.PerPlayer
	if per <= 0 {
		per = DefaultPerPlayer
	}
	exclude := wire.NormalizeURLs(opts.Exclude)
	players, votes := writeRelays(lists, per, opts.AllowLocal)
	order(players, opts.Priority, opts.Rotate)
	chosen := map[string]bool{}
	for _, u := range exclude {
		chosen[u] = true
	}
	var out []string
	for round := range per {
		for _, p := range players {
			if opts.Max > 0 && len(out) == opts.Max {
				return out
			}
			if u := p.pick(round, chosen, votes); u != "" {
				chosen[u] = true
				out = append(out, u)
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// player is one author's usable write relays, in its list's order.
type player struct {
	pubkey string
	relays []string
}

// writeRelays are each author's first per usable write relays, and how
// many authors name each relay.
func writeRelays(lists []*nostr.Event, per int, allowLocal bool) ([]*player, map[string]int) {
	var players []*player
	votes := map[string]int{}
	for pubkey, rl := range nostr.LatestRelayLists(lists) {
		p := &player{pubkey: pubkey}
		for _, u := range rl.Write {
			if len(p.relays) == per {
				break
			}
			if (allowLocal || !nostr.IsLocalRelay(u)) && !slices.Contains(p.relays, u) {
				p.relays = append(p.relays, u)
				votes[u]++
			}
		}
		if len(p.relays) > 0 {
			players = append(players, p)
		}
	}
	return players, votes
}

// order sorts players by priority, highest first, and turns each run of
// equal priority (in pubkey order) by rotate places.
func order(players []*player, priority func(string) int, rotate int) {
	prio := map[string]int{}
	if priority != nil {
		for _, p := range players {
			prio[p.pubkey] = priority(p.pubkey)
		}
	}
	slices.SortFunc(players, func(a, b *player) int {
		return cmp.Or(cmp.Compare(prio[b.pubkey], prio[a.pubkey]), cmp.Compare(a.pubkey, b.pubkey))
	})
	for i := 0; i < len(players); {
		j := i + 1
		for j < len(players) && prio[players[j].pubkey] == prio[players[i].pubkey] {
			j++
		}
		if n := j - i; n > 1 && rotate != 0 {
			k := ((rotate % n) + n) % n
			slices.Reverse(players[i : i+k])
			slices.Reverse(players[i+k : j])
			slices.Reverse(players[i:j])
		}
		i = j
	}
}

// pick is the player's relay for round r, or "" when it has more than r
// of its relays chosen already: in round 0 the one most players name
// (then the higher in its list), later the first not chosen.
func (p *player) pick(r int, chosen map[string]bool, votes map[string]int) string {
	have, best := 0, ""
	for _, u := range p.relays {
		switch {
		case chosen[u]:
			have++
		case best == "" || r == 0 && votes[u] > votes[best]:
			best = u
		}
	}
	if have > r {
		return ""
	}
	return best
}

// InboxRelays are the first n read relays of a player's latest relay list
// among lists (NIP-65: where to send an event that tags the player), or
// nil when lists hold none for pubkey; n <= 0 means DefaultPerPlayer.
// Local relays are dropped unless allowLocal.
func InboxRelays(lists []*nostr.Event, pubkey string, n int, allowLocal bool) []string {
	if n <= 0 {
		n = DefaultPerPlayer
	}
	rl := nostr.LatestRelayLists(lists)[pubkey]
	if rl == nil {
		return nil
	}
	var out []string
	for _, u := range rl.Read {
		if len(out) == n {
			break
		}
		if allowLocal || !nostr.IsLocalRelay(u) {
			out = append(out, u)
		}
	}
	return out
}
