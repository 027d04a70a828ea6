package relay

import (
	"log/slog"
	"time"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
)

// Received is one checked event and the relay that sent it (wire.Received:
// the client and reconcile.Sync send the same values on the same channel).
type Received = wire.Received

// Config configures a Client. Zero durations and limits take the defaults
// in brackets.
type Config struct {
	// Relays are the relays the client always reads and publishes to;
	// Follow adds more at run time, to read from.
	Relays  []string
	Cursors Cursors // nil: in memory, so every start backfills everything
	// MarkCursors sends each cursor move on out as a mark behind the events
	// it covers, instead of writing Cursors: a consumer that saves the mark
	// once the events before it are stored never moves a cursor past an
	// event a crash lost on the way. Cursors is then only read.
	MarkCursors bool
	Key         nostr.SecretKey // optional: answers NIP-42 AUTH when a relay asks
	// SafetyMargin is subtracted from the cursor when backfilling, for
	// events that reach a relay late or carry a clock-skewed created_at
	// [15m].
	SafetyMargin time.Duration
	// PageLimit is the "limit" of each backfill query; a relay's NIP-11
	// max_limit lowers it [500].
	PageLimit int
	Logger    *slog.Logger // [discard]
	// OnReject is called for every event a relay sent that is not delivered,
	// with one of the Reject* reasons (for metrics).
	OnReject func(relay, reason string)
	// OnConnected is called, on the relay's goroutine, after each
	// (re)connect's backfill: a consumer then runs reconcile.Sync for that relay.
	OnConnected func(relay string)

	MinBackoff   time.Duration // first reconnect delay [1s]
	MaxBackoff   time.Duration // reconnect delay cap [5m]
	PingInterval time.Duration // liveness check and cursor save period [30s]
	QueryTimeout time.Duration // wait for one EOSE [30s]
	DialTimeout  time.Duration // websocket and NIP-11 connect [10s]
	// Now is the clock for cursors [time.Now].
	Now func() time.Time

	// MaxMessageSize is the largest websocket message kept: a larger one is
	// read through and dropped (RejectOversized) [DefaultMaxMessageSize,
	// 256 KiB], and one over MaxFrameSize ends the connection
	// [DefaultMaxFrameSize, 16 MiB].
	MaxMessageSize int64
	MaxFrameSize   int64
	// QueueBytes bounds the frames read from one relay and not yet handled
	// [DefaultQueueBytes, 4 MiB].
	QueueBytes int
	// BackfillBudget is how long after Run starts a relay whose first
	// backfill has not completed stops holding Ready back [30s].
	BackfillBudget time.Duration
	// BackfillEvents settles a relay once its first backfill has delivered
	// this many events [20000].
	BackfillEvents int
	// BackfillPages is the pages one session asks for; then the relay
	// counts as settled, the progress is kept and the session ends, to
	// resume from there on the next connection [100].
	BackfillPages int
	// ProfileBatch is the authors of one profile query [100].
	ProfileBatch int
	// RelayLists also watches the authors' relay lists (kind
	// 10002, NIP-65) wherever it watches their profiles, so that a consumer
	// can Follow their write relays (follow.OutboxRelays).
	RelayLists bool

	// MaxRelays caps the relays read at once, Relays and the relays
	// added by Follow together [DefaultMaxRelays]. Relays are always
	// read; Follow adds none past the cap.
	MaxRelays int
	// AllowPrivate lets relays added by Follow (named by someone else:
	// players' relay lists) be private, loopback or link-local addresses.
	// Without it they are dialed through internal/netguard, which refuses
	// such addresses after resolution; Relays are always dialed as
	// written. Only the operator sets it (--allow-private-relays).
	AllowPrivate bool
	// AsideAfter is how many failed sessions in a row put a relay added by
	// Follow aside [3]: it is then retried only after AsideBackoff, doubling
	// up to AsideMaxBackoff [10m, 6h], until a session succeeds. (The
	// configured relays keep MinBackoff..MaxBackoff: someone chose them.)
	AsideAfter      int
	AsideBackoff    time.Duration
	AsideMaxBackoff time.Duration
	// MayWrite lists relays whose restricted_writes or payment_required does
	// not stop a publication (their policy admits this key); elsewhere
	// publications skip such relays (PublishResult.Skipped).
	MayWrite []string
}

// DefaultMaxRelays is Config.MaxRelays' default: enough for a few
// configured relays and the write relays of a few dozen players, few
// enough that each relay's goroutine, socket and sync stay cheap.
const DefaultMaxRelays = 24

func (cfg Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.SafetyMargin, 15*time.Minute)
	def(&cfg.MinBackoff, time.Second)
	def(&cfg.MaxBackoff, 5*time.Minute)
	def(&cfg.PingInterval, 30*time.Second)
	def(&cfg.QueryTimeout, 30*time.Second)
	def(&cfg.DialTimeout, 10*time.Second)
	if cfg.PageLimit <= 0 {
		cfg.PageLimit = 500
	}
	def(&cfg.BackfillBudget, 30*time.Second)
	if cfg.BackfillEvents <= 0 {
		cfg.BackfillEvents = 20000
	}
	if cfg.BackfillPages <= 0 {
		cfg.BackfillPages = 100
	}
	if cfg.ProfileBatch <= 0 {
		cfg.ProfileBatch = 100
	}
	if cfg.MaxRelays <= 0 {
		cfg.MaxRelays = DefaultMaxRelays
	}
	if cfg.AsideAfter <= 0 {
		cfg.AsideAfter = 3
	}
	def(&cfg.AsideBackoff, 10*time.Minute)
	def(&cfg.AsideMaxBackoff, 6*time.Hour)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Cursors == nil {
		cfg.Cursors = NewMemCursors()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return cfg
}
