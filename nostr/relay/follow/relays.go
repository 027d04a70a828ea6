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
	// Exclude are relays followed anyway (relay.Config.Relays): they still count
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
}

// OutboxRelays picks the relays to follow for players' events (NIP-65's
// outbox model) from their relay lists: of each author's latest kind
// 10002 among lists (checked events; other kinds are ignored), the first
// PerPlayer usable write relays. The result is deduplicated across players
// and ordered most wanted first (named by the most players, then higher in
// their lists, then by URL), so that a cap keeps the relays that find the
// most players. It is a pure function of its arguments.
func OutboxRelays(lists []*nostr.Event, opts OutboxOptions) []string {
	per := opts.PerPlayer
	if per <= 0 {
		per = DefaultPerPlayer
	}
	exclude := wire.NormalizeURLs(opts.Exclude)
	type want struct {
		url     string
		players int
		rank    int // best position in a list
	}
	wants := map[string]*want{}
	for _, rl := range nostr.LatestRelayLists(lists) {
		n := 0
		for _, u := range rl.Write {
			if n == per {
				break
			}
			if !opts.AllowLocal && nostr.IsLocalRelay(u) {
				continue
			}
			rank := n
			n++
			if slices.Contains(exclude, u) {
				continue
			}
			w := wants[u]
			if w == nil {
				w = &want{url: u, rank: rank}
				wants[u] = w
			}
			w.players++
			w.rank = min(w.rank, rank)
		}
	}
	all := make([]*want, 0, len(wants))
	for _, w := range wants {
		all = append(all, w)
	}
	slices.SortFunc(all, func(a, b *want) int {
		return cmp.Or(cmp.Compare(b.players, a.players), cmp.Compare(a.rank, b.rank), cmp.Compare(a.url, b.url))
	})
	if opts.Max > 0 && len(all) > opts.Max {
		all = all[:opts.Max]
	}
	out := make([]string, len(all))
	for i, w := range all {
		out[i] = w.url
	}
	return out
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
