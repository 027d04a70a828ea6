package reconcile

import (
	"context"
	"log/slog"
	"time"

	"vesper/nostr"
)

// Options configure Sync. Zero durations and limits take the defaults
// in brackets.
type Options struct {
	Relays []string
	// Local lists the stored events of kinds (for NIP-77). Required.
	Local func(ctx context.Context, kinds []int) ([]Item, error)
	// Windows, when set, splits each NIP-77 reconciliation into created_at
	// windows (together covering every created_at), and LocalIn lists the
	// stored events of kinds within one: a reconciliation then holds one
	// window's ids in memory, not the whole history's. Local is not used.
	Windows func(ctx context.Context, kinds []int) ([]Window, error)
	LocalIn func(ctx context.Context, kinds []int, w Window) ([]Item, error)
	// Open lists the matches the fallback asks about by name: those whose
	// result is not final, less any MatchesSince covers. Required.
	Open func(ctx context.Context) ([]string, error)
	// Known reports which ids are stored. Required.
	Known func(ctx context.Context, ids []string) (map[string]bool, error)
	// ChallengesSince is, per relay, the created_at from which the fallback
	// asks for challenges: the last completed sync minus the 7-day expiry
	// covers every challenge still open. 0 scans all of them (a first
	// sync, or the daily full scan). nil means 0.
	ChallengesSince func(relay string) int64
	// MatchesSince is, per relay, the created_at from which the fallback
	// asks for every event of the match kinds, whatever match it names
	// (0: not asked). Open may then leave out matches that rarely change
	// (dormant ones): a new event of one comes in this window, and the
	// fallback then asks about its match whole.
	MatchesSince func(relay string) int64
	// Matches are more matches the fallback asks every relay about (ones
	// the caller has seen named by an event whose challenge it lacks).
	Matches []string
	// NoNIP77 skips NIP-77 and uses the fallback on every relay.
	NoNIP77 bool
	// FallbackOnly, when set, limits the run to the fallback for Matches
	// (no NIP-77, no open matches, no challenge scan).
	FallbackOnly bool

	Key       nostr.SecretKey // answers NIP-42 AUTH on every connection, NIP-77 sessions too
	PageLimit int             // "limit" per query, lowered by NIP-11 max_limit [500]
	// RelayTimeout bounds all the work on one relay [10m].
	RelayTimeout time.Duration
	QueryTimeout time.Duration // silence before a query or a NEG-MSG is given up [30s]
	// ProbeTimeout is the wait for the answer to NEG-OPEN from a relay that
	// does not list NIP 77 in its NIP-11 document [3s].
	ProbeTimeout time.Duration
	DialTimeout  time.Duration // websocket and NIP-11 connect [10s]
	MaxRounds    int           // NEG-MSG exchanges per filter [64]
	Logger       *slog.Logger  // [discard]
	// OnReject is called for every event a relay sent that is refused.
	OnReject func(relay, reason string)
	// Progress, if set, is called as work is done (from several
	// goroutines, one relay each).
	Progress func(Progress)

	// Budget bounds the NIP-77 work of each relay [DefaultBudget], and
	// StrangerBudget that of each relay in Strangers
	// [DefaultStrangerBudget]: relays someone else named (players' NIP-65
	// relay lists), which may answer with ids without end. A relay that
	// uses its budget has what it claimed so far fetched and the rest left
	// to the next sync (Stats.NegError says so).
	Budget, StrangerBudget Budget
	Strangers              []string
	// TotalIDs bounds the ids all relays' reconciliations hold at once
	// [DefaultTotalIDs], and MaxSessions the NIP-77 sessions open at once
	// [DefaultMaxSessions].
	TotalIDs, MaxSessions int
	// Strangers are dialed through internal/netguard, which refuses
	// private, loopback, link-local and other internal addresses after
	// resolution, unless AllowPrivate (the operator's
	// --allow-private-relays); the others are dialed as written.
	AllowPrivate bool
}

// Window is a created_at range [Since, Until], both inclusive; zero
// leaves that end open.
type Window struct {
	Since, Until int64
}

// Progress is a step of Sync on one relay.
type Progress struct {
	Relay   string
	Phase   string // "nip77", "fetch", "challenges", "matches"
	Fetched int    // new events sent on out so far, on this relay
}

// Stats is what Sync did on one relay.
type Stats struct {
	Relay string `json:"relay"`
	// Method is "nip77" or "fallback" (also when NIP-77 failed and the
	// fallback ran instead).
	Method string `json:"method"`
	// Compared is the number of ids reconciled (NIP-77: the local set of
	// every filter) or of events the relay sent (fallback).
	Compared int `json:"compared"`
	Fetched  int `json:"fetched"` // new events sent on out
	Refused  int `json:"refused"` // events the relay sent that failed the checks
	// Missing counts ids the relay claimed in NIP-77 but did not send,
	// though asked twice (the second time by id alone), and MissingIDs
	// names the first maxMissingIDs of them: `vesper sync` then exits
	// non-zero naming them.
	Missing    int      `json:"missing"`
	MissingIDs []string `json:"missing_ids,omitempty"`
	Rounds     int      `json:"rounds"`
	Bytes      int64    `json:"nip77_bytes"` // NIP-77 messages, both ways
	Error      string   `json:"error,omitempty"`
	// Splits counts the NIP-77 windows halved because the relay's set in
	// them looked cut at a cap or the relay answered "too many" (split.go);
	// Paged, the one-second windows still cut, read by REQ instead.
	Splits int `json:"nip77_splits,omitempty"`
	Paged  int `json:"nip77_paged,omitempty"`
	// Check is what the NIP-77 check of this sync saw (calibrate.go):
	// "n/n" or "cut at n" when the relay's NIP-77 view was trusted, else
	// why not (then NegError says so too and Method is "fallback").
	Check string `json:"nip77_check,omitempty"`
	// NegError is why NIP-77 was not used on a relay that may offer it.
	NegError string        `json:"nip77_error,omitempty"`
	Elapsed  time.Duration `json:"-"`
	// Revealed are the matches the new events from this relay name (NIP-77)
	// or the new challenges it sent (fallback): Sync asks the relays
	// without NIP-77 about the former.
	Revealed []string `json:"-"`
	// Untrusted: the NIP-77 check failed (Check says why), so the relay
	// was paged, every challenge scanned.
	Untrusted bool `json:"nip77_untrusted,omitempty"`
	// AuthRequired: the relay refused to be read without NIP-42 AUTH, and
	// there was no key to authenticate with.
	AuthRequired bool `json:"auth_required,omitempty"`
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.RelayTimeout, 10*time.Minute)
	def(&o.QueryTimeout, 30*time.Second)
	def(&o.ProbeTimeout, 3*time.Second)
	def(&o.DialTimeout, 10*time.Second)
	if o.PageLimit <= 0 {
		o.PageLimit = 500
	}
	if o.MaxRounds <= 0 {
		o.MaxRounds = 64
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Budget = o.Budget.or(DefaultBudget)
	o.StrangerBudget = o.StrangerBudget.or(DefaultStrangerBudget)
	if o.TotalIDs <= 0 {
		o.TotalIDs = DefaultTotalIDs
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.ChallengesSince == nil {
		o.ChallengesSince = func(string) int64 { return 0 }
	}
	return o
}
