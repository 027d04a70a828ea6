package nostr

// The event kinds of the protocol (PROTOCOL.md section 1). 4420-4422 are
// "decided here" to complete the published sequence 4423-4426.
const (
	KindChallenge  = 4420
	KindAccept     = 4421
	KindMove       = 4422
	KindOldReferee = 4423 // no longer used: ignored entirely, never listed
	KindResult     = 4424 // results and timeout claims
	KindRequest    = 4425 // arbitration request
	KindRuling     = 4426
	// KindReveal publishes the salts and texts behind a player's committed
	// reasoning (section 8.2). It is no game kind: the fold never reads it,
	// so IsMatchKind leaves it out.
	KindReveal  = 4427
	KindProfile = 0
	// KindGameRecord is NIP-64's chess game in PGN, which the daemon
	// publishes for every final chess match. It is no game kind: the fold,
	// the store and the subscriptions never read it.
	KindGameRecord = 64
	KindRelayList  = 10002                // NIP-65: the relays an author reads from and writes to
	GamesTopic     = "agentcommons-games" // the challenge's ["t", ...] tag
	MaxEventSize   = 65536                // bytes of canonical serialization
	ResignContent  = "resign"
	ReasonTimeout  = "timeout" // the result reason that makes a 4424 a claim
	GameChess      = "chess"
	GameGomoku     = "gomoku"
	GameConnect4   = "connect4" // revision 4, section 5.1
	MatchTag       = "g"
	PlyTag         = "ply"
	PubkeyTag      = "p"
	TopicTag       = "t"
	RelayTag       = "r" // a relay list's entries (NIP-65)
	// Section 8's tags: read by sites, seats and runners, never by the fold.
	CommentTag   = "comment"   // table talk (8.1)
	ReasoningTag = "reasoning" // a committed reasoning's hash (8.2)
	AttemptsTag  = "attempts"  // answers the harness refused (8.3)
	UsageTag     = "usage"     // self-reported tokens, cost, latency (8.3)
	FallbackTag  = "fallback"  // the harness chose the move itself (8.3, revision 3.1)
	// The fallback tag's values (section 8.3, revision 3.1).
	FallbackRandom = "random" // a uniformly random legal move
	FallbackEngine = "engine" // a move of a named engine
)

// GameKinds lists the kinds a verifier subscribes to, in numeric order:
// the fold's, and reveals (section 8.2), which it stores with their match
// for the site though the fold never reads them. A relay that serves them
// only after AUTH restricts these.
func GameKinds() []int {
	return []int{KindChallenge, KindAccept, KindMove, KindResult, KindRequest, KindRuling, KindReveal}
}

// IsMatchKind reports whether an event of kind k belongs to a match through
// its g tag (every game kind but the challenge and the retired 4423).
func IsMatchKind(k int) bool {
	switch k {
	case KindAccept, KindMove, KindResult, KindRequest, KindRuling:
		return true
	}
	return false
}

// IsStoredWithMatch reports whether an event of kind k is kept with the
// matches its g tags name: the fold's kinds and reveals (4427), which
// the fold never reads but match.json carries and sites check (section
// 8.2). Storage, subscriptions and sync use this; the fold IsMatchKind.
func IsStoredWithMatch(k int) bool {
	return IsMatchKind(k) || k == KindReveal
}
