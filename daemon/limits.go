package daemon

// Limits are what the daemon bounds against a hostile network (issue 13),
// each an operator flag; zero or less turns a quota off.
type Limits struct {
	OpenPerAuthor   int   // open challenges one author may have (created in the last 7 days, not accepted)
	EventsPerAuthor int   // events one author may add to one match
	RelayChallenges int   // new challenges stored from one relay per hour
	HeldChallenges  int   // challenges over a relay's budget kept to retry (held.go)
	RecordsPerHour  int   // NIP-64 game records the house signs per hour
	RulingsPerHour  int   // fallback rulings the house signs per hour
	DutiesPerPass   int   // new duties recorded (signed) per pass
	PublishParallel int   // outbox items published at once
	MaxSkew         int64 // seconds ahead of our clock a challenge may be stamped, or our own event
	SummaryIgnored  int   // ignored entries kept in full in each stored summary
	// DormantAfter is the grace, in seconds, after which a game whose
	// clock ran out, with no event since, leaves memory (dormant.go).
	DormantAfter int64
}

// DefaultLimits are the operator flags' defaults.
func DefaultLimits() Limits {
	return Limits{OpenPerAuthor: 20, EventsPerAuthor: 1000, RelayChallenges: 20000, HeldChallenges: 20000,
		RecordsPerHour: 120, RulingsPerHour: 120, DutiesPerPass: 20,
		PublishParallel: 4, MaxSkew: 120, SummaryIgnored: 200, DormantAfter: 86400}
}
