package nostr

import (
	"fmt"

	gn "github.com/nbd-wtf/go-nostr"
)

// NIP-64 game records. For every chess match whose result is final the
// daemon publishes one kind 64 event whose content is the match's PGN in
// export format (the site's m/<id>.pgn), so that any Nostr chess client
// can show the game. Its tags:
//
//	["alt", "<the game in words>"]           NIP-31, for clients without NIP-64
//	["e", <match id>, "", <challenger>]      NIP-01 reference to the challenge
//	["p", <first player>], ["p", <second>]   White, then Black
//
// The match is referenced with an e tag, not with the protocol's g tag.
// A g tag is what makes an event of kind 4421-4426 part of a match
// (PROTOCOL.md section 2); a record is about the match, not part of it,
// and other clients read g as a geohash (NIP-52). Every client reads e as
// a reference to an event (NIP-01), here the challenge, whose id is the
// match id (section 1), with its author as the optional fourth element.
//
// A record is never a game event: KindGameRecord is not among GameKinds
// and IsMatchKind is false for it, so the fold, store.MatchesOf and the
// subscriptions pass it by, and it carries no g tag that another
// verifier's fold could count.

// Tag names a game record uses besides p.
const (
	EventTag = "e"   // NIP-01: a reference to an event
	AltTag   = "alt" // NIP-31: a description for clients that cannot show the event
)

// GameRecord is what a NIP-64 record says about a match.
type GameRecord struct {
	Match  string // the match id: the challenge's event id
	First  string // hex pubkey of the first player (White), the challenge's author
	Second string // hex pubkey of the second player (Black)
	PGN    string // the event's content
	Alt    string // the alt tag's text
}

// NewGameRecord builds the unsigned kind 64 event of r (sign it with
// SecretKey.Sign).
func NewGameRecord(r GameRecord, createdAt int64) *Event {
	return &Event{Kind: KindGameRecord, CreatedAt: Timestamp(createdAt), Content: r.PGN,
		Tags: Tags{
			{AltTag, r.Alt},
			gn.Tag{EventTag, r.Match, "", r.First},
			{PubkeyTag, r.First},
			{PubkeyTag, r.Second},
		}}
}

// ParseGameRecord reads a game record as NewGameRecord builds it: kind 64,
// a PGN in the content, exactly one e tag naming a match (64 lowercase
// hex), exactly two p tags with the players (64 lowercase hex, distinct),
// and at most one alt tag. Anything else is an error (*TagError for the
// tags); the PGN itself is not checked here.
func ParseGameRecord(ev *Event) (GameRecord, error) {
	if ev == nil {
		return GameRecord{}, fmt.Errorf("nostr: game record: no event")
	}
	if ev.Kind != KindGameRecord {
		return GameRecord{}, fmt.Errorf("nostr: game record: kind %d, want %d", ev.Kind, KindGameRecord)
	}
	if ev.Content == "" {
		return GameRecord{}, fmt.Errorf("nostr: game record %s: no PGN in the content", ev.ID)
	}
	r := GameRecord{PGN: ev.Content}
	n, vals := countTags(ev, EventTag)
	if n != 1 || len(vals) != 1 {
		return GameRecord{}, &TagError{Tag: EventTag, Token: "bad_e_tag", Reason: fmt.Sprintf("%d e tags, want one naming the match", n)}
	}
	if !IsLowerHex(vals[0], 64) {
		return GameRecord{}, &TagError{Tag: EventTag, Token: "bad_e_tag", Reason: fmt.Sprintf("match id %s is not 64 lowercase hex", quoteShort(vals[0]))}
	}
	r.Match = vals[0]
	n, vals = countTags(ev, PubkeyTag)
	if n != 2 || len(vals) != 2 {
		return GameRecord{}, &TagError{Tag: PubkeyTag, Token: "bad_p_tag", Reason: fmt.Sprintf("%d p tags, want the two players", n)}
	}
	for _, pk := range vals {
		if !IsLowerHex(pk, 64) {
			return GameRecord{}, &TagError{Tag: PubkeyTag, Token: "bad_p_tag", Reason: fmt.Sprintf("player %s is not 64 lowercase hex", quoteShort(pk))}
		}
	}
	if vals[0] == vals[1] {
		return GameRecord{}, &TagError{Tag: PubkeyTag, Token: "bad_p_tag", Reason: "the two players are one key"}
	}
	r.First, r.Second = vals[0], vals[1]
	n, vals = countTags(ev, AltTag)
	switch {
	case n > 1:
		return GameRecord{}, &TagError{Tag: AltTag, Token: "bad_alt_tag", Reason: fmt.Sprintf("%d alt tags", n)}
	case len(vals) == 1:
		r.Alt = vals[0]
	}
	return r, nil
}
