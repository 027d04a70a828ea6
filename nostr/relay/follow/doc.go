// Package follow picks relays from players' NIP-65 relay lists (kind
// 10002): OutboxRelays, the write relays where players' events are, for
// the client to follow (relay.Client.SetFollowed); InboxRelays, the read
// relays of a player an event tags, for publishing to it. Both are pure
// functions of the lists they are given; the caller decides whose lists
// count.
package follow
