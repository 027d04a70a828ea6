package nostr

import (
	"strconv"

	gn "github.com/nbd-wtf/go-nostr"
)

// The builders return unsigned events; Sign fills pubkey, id and sig. The
// created_at is always an argument: callers own the clock.

// NewChallenge builds a challenge for game, inviting invitee when not "".
func NewChallenge(game, invitee string, createdAt int64) *Event {
	tags := Tags{{TopicTag, GamesTopic}}
	if invitee != "" {
		tags = append(tags, gn.Tag{PubkeyTag, invitee})
	}
	b := []byte(`{"game":`)
	b = AppendString(b, game)
	b = append(b, '}')
	return &Event{Kind: KindChallenge, CreatedAt: Timestamp(createdAt), Tags: tags, Content: string(b)}
}

// NewAccept builds an accept of match, naming its challenger.
func NewAccept(match, challenger string, createdAt int64) *Event {
	return &Event{Kind: KindAccept, CreatedAt: Timestamp(createdAt),
		Tags: Tags{{MatchTag, match}, {PubkeyTag, challenger}}}
}

// NewMove builds a move (or "resign") at ply.
func NewMove(match string, ply int, move string, createdAt int64) *Event {
	return &Event{Kind: KindMove, CreatedAt: Timestamp(createdAt),
		Tags: Tags{{MatchTag, match}, {PlyTag, strconv.Itoa(ply)}}, Content: move}
}

// NewResult builds a result signature or, with reason "timeout", a claim.
func NewResult(match string, r Result, createdAt int64) *Event {
	return &Event{Kind: KindResult, CreatedAt: Timestamp(createdAt),
		Tags: Tags{{MatchTag, match}}, Content: r.Content()}
}

// NewRequest builds an arbitration request.
func NewRequest(match, note string, createdAt int64) *Event {
	return &Event{Kind: KindRequest, CreatedAt: Timestamp(createdAt),
		Tags: Tags{{MatchTag, match}}, Content: note}
}

// NewRuling builds an arbiter ruling.
func NewRuling(match string, r Result, createdAt int64) *Event {
	return &Event{Kind: KindRuling, CreatedAt: Timestamp(createdAt),
		Tags: Tags{{MatchTag, match}}, Content: r.Content()}
}
