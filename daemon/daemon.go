package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"vesper/arbiter"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/site/opening"
	"vesper/store"
)

// Config is what a Daemon is built from.
type Config struct {
	Store   *store.Store // required; the caller opens and closes it
	Key     nostr.SecretKey
	Relays  []string
	Arbiter arbiter.Config
	// Limits bound what the network can make the daemon do; nil means
	// DefaultLimits.
	Limits *Limits
	Log    *slog.Logger  // nil: discarded
	Clock  func() int64  // unix seconds; nil: time.Now
	Think  time.Duration // engine time per move; zero: 2 s
	Run    Options       // Run's pacing and the site
	// Recheck makes Rebuild check every stored event's id and signature
	// again (`vesper rebuild --verify`).
	Recheck bool
	// Analysis, when set, grades finished games in the background.
	Analysis *AnalysisOptions
	// MaxRelays caps the relays followed at once, the configured ones and
	// the players' write relays (NIP-65) together [relay.DefaultMaxRelays].
	MaxRelays int
	// AllowPrivateRelays lets the relays named by others (players' NIP-65
	// lists) be private, loopback or link-local addresses
	// (internal/netguard); Relays are always dialed as written. Only the
	// operator sets it (--allow-private-relays).
	AllowPrivateRelays bool
}

// Options pace Run and name the site. Zero durations take the defaults
// given with each field.
type Options struct {
	Tick      time.Duration // duties without new events (1 minute)
	SiteDir   string        // "": no site
	SiteEvery time.Duration // site build interval (15 minutes)
	ListAll   bool          // list every account on the site, not only bots
	Metrics   string        // serve Prometheus metrics on this address ("": none)
	// SourceURL is where vesper's source is published, linked from the
	// site's how-to (--source-url); "": the page says it was not stated.
	SourceURL string
	// Openings names chess openings on the site and in the game records'
	// PGNs (--openings); nil is the table shipped with vesper.
	Openings *opening.Table
	// SyncEvery and FullScanEvery pace the relay sync (1 h and 24 h).
	SyncEvery     time.Duration
	FullScanEvery time.Duration
	NoNIP77       bool
	// FirstSyncWait bounds how long duties wait for the start's sync
	// (90 s): a relay that drips its answer must not hold them.
	FirstSyncWait time.Duration
	// ReconnectGap is the least time between two syncs of a relay that
	// its reconnects trigger (a minute): a flapping relay is synced once
	// a gap, its reconnects coalesced.
	ReconnectGap time.Duration
}

// Open builds a Daemon on cfg.Store. It starts nothing: Run does.
func Open(cfg Config) (*Daemon, error) {
	if cfg.Store == nil {
		return nil, errors.New("daemon: no store")
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	n := newNode(cfg.Store, cfg.Key, cfg.Relays, cfg.Arbiter, log)
	if cfg.Limits != nil {
		n.lim = *cfg.Limits
		n.cfg.MaxSkew = n.lim.MaxSkew
	}
	if cfg.Clock != nil {
		n.clock = cfg.Clock
	}
	if cfg.Think > 0 {
		n.think = cfg.Think
	}
	n.recheck = cfg.Recheck
	n.maxRelays = cfg.MaxRelays
	n.allowPrivate = cfg.AllowPrivateRelays
	n.opts = cfg.Run
	if cfg.Analysis != nil {
		n.analyst = &analyst{opts: *cfg.Analysis, wake: make(chan struct{}, 1)}
	}
	return n, nil
}

// Run runs the daemon until ctx ends or a store error stops it, and
// returns once every goroutine it started has ended. A Daemon runs once.
func (n *Daemon) Run(ctx context.Context) error {
	n.runMu.Lock()
	if n.ran {
		n.runMu.Unlock()
		return errors.New("daemon: Run called twice")
	}
	n.ran = true
	ctx, n.stop = context.WithCancel(ctx)
	n.done = make(chan struct{})
	n.runMu.Unlock()
	defer close(n.done)
	return n.runDaemon(ctx, n.opts)
}

// Close stops Run, if it runs, and waits for it and everything it
// started. It does not close the store, which the caller opened.
func (n *Daemon) Close() error {
	n.runMu.Lock()
	stop, done := n.stop, n.done
	n.runMu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	return nil
}

// runState is what Run and Close share.
type runState struct {
	runMu sync.Mutex
	ran   bool
	stop  context.CancelFunc
	done  chan struct{}
	opts  Options
}

// Self is the daemon's hex pubkey, "" when it runs without a key.
func (n *Daemon) Self() string { return n.self }

// State returns the current state of a match the daemon keeps (one that is
// not final), or nil.
func (n *Daemon) State(id string) *match.State { return n.state(id) }

// Rebuild re-folds every stored match and writes its summary, reporting
// progress; it returns how many matches there were and, with
// Config.Recheck, how many stored events failed their check.
func (n *Daemon) Rebuild(ctx context.Context, progress func(done, total int)) (matches int, rejected int64, err error) {
	count, err := n.rebuild(ctx, progress)
	if err == nil {
		// The sync's index too, made here rather than in the next start
		// (issue 38).
		err = n.st.PrepareSync(ctx)
	}
	return count, n.rejected.Load(), err
}

// Decide runs one pass of duties, recording each new one in the outbox
// (signed), and returns how many it recorded.
func (n *Daemon) Decide(ctx context.Context) (int, error) { return n.decide(ctx) }

// PublishPending sends every outbox event not yet acknowledged, each on a
// connection of its own (`arbiter --once`, which runs no relay client).
func (n *Daemon) PublishPending(ctx context.Context, timeout time.Duration) ([]Sent, error) {
	return n.publishPending(ctx, timeout)
}

// Ingest stores a batch of checked events and folds the matches they
// touch, as the daemon's loop does (`arbiter --once`).
func (n *Daemon) Ingest(ctx context.Context, batch []relay.Received) error {
	_, err := n.ingest(ctx, batch)
	return err
}

// Load returns the state of a match: the one the daemon keeps, else a
// fold of what the store holds (a final or expired match), else nil.
func (n *Daemon) Load(ctx context.Context, id string) (*match.State, error) {
	if s := n.state(id); s != nil {
		return s, nil
	}
	s, _, err := foldOne(ctx, n.st, id)
	return s, err
}

// Resume folds what a start folds (the open matches and those a crash
// left behind their events), as Run does first; `arbiter --once` calls it
// before it decides.
func (n *Daemon) Resume(ctx context.Context) error {
	_, err := n.resume(ctx)
	return err
}
