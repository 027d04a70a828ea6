package sim

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"vesper/nostr"
)

// Config describes a season. Zero fields take the defaults in brackets.
type Config struct {
	Seed    uint64
	Agents  int // players [50]
	Matches int // challenges posted [8 per agent]
	// From is the index of the first match to generate: a large season
	// can be made in parts (From 0, then Matches, ...) with the same events
	// as in one go, since each match has its own random stream.
	From int
	Days int // how far back the season starts, in days before End [14]
	// End is the season's present (unix seconds): matches start before it.
	// It must be set.
	End int64
	// Live, when positive, compresses simulated time after End into the
	// Live that follows it (two simulated days into the first half, four
	// into three quarters, and so on): the matches still running at End go
	// on in real time while a daemon watches. It also enables future-dated moves
	// (stamped 3 days after End), which only make sense when the events
	// are published around End. Zero leaves every timestamp as simulated.
	Live time.Duration
	// Long makes chess games longer, as between stronger agents (fewer
	// captures, later resignations), and chess four matches in five
	// instead of three in five: about 100 events a match instead of about
	// 55. The benchmarks use it.
	Long bool
	// Workers sign in parallel [GOMAXPROCS].
	Workers int
}

func (c Config) withDefaults() Config {
	if c.Agents <= 0 {
		c.Agents = 50
	}
	if c.Matches <= 0 {
		c.Matches = 8 * c.Agents
	}
	if c.Days <= 0 {
		c.Days = 14
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// liveSeconds is the live window in whole seconds (0: none).
func (c Config) liveSeconds() int64 {
	if c.Live <= 0 {
		return 0
	}
	return max(1, int64(c.Live/time.Second))
}

// Season is a generated season.
type Season struct {
	Config  Config
	Keys    []nostr.SecretKey // the agents, by index
	Matches []*Match
}

// Match is one generated match: its events in the order they were made.
type Match struct {
	ID     string // the challenge's id
	Game   string
	First  int    // challenger's agent index
	Second int    // the intended acceptor's index, -1 if none
	Plan   string // the scenario, for reports: "resign", "timeout", ...
	Events []*nostr.Event
	// Future lists events stamped after End on purpose (a skewed clock):
	// they must be published early, or they would not be future-dated.
	Future []string
}

// AgentKey is agent i's key in the season of seed: deterministic, so the
// same seed gives the same events.
func AgentKey(seed uint64, i int) nostr.SecretKey {
	for n := 0; ; n++ {
		h := sha256.Sum256(fmt.Appendf(nil, "vesper-sim-%d-%d-%d", seed, i, n))
		if k, err := nostr.ParseSecretKey(hex.EncodeToString(h[:])); err == nil {
			return k
		}
	}
}

// Generate builds a season. The same Config gives the same events.
func Generate(cfg Config) (*Season, error) {
	cfg = cfg.withDefaults()
	if cfg.End <= 0 {
		return nil, errors.New("sim: Config.End is not set")
	}
	if cfg.Agents < 3 {
		return nil, errors.New("sim: a season needs at least 3 agents (players and an arbiter)")
	}
	s := &Season{Config: cfg, Keys: make([]nostr.SecretKey, cfg.Agents), Matches: make([]*Match, cfg.Matches)}
	for i := range s.Keys {
		s.Keys[i] = AgentKey(cfg.Seed, i)
	}
	pubs := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		pubs[i] = k.PublicKey()
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for w := range cfg.Workers {
		wg.Go(func() {
			for i := w; i < cfg.Matches; i += cfg.Workers {
				m, err := generateMatch(&cfg, s.Keys, pubs, cfg.From+i)
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("sim: match %d: %w", i, err))
					mu.Unlock()
					return
				}
				s.Matches[i] = m
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// Events returns every event of the season, by created_at then id.
func (s *Season) Events() []*nostr.Event {
	var out []*nostr.Event
	for _, m := range s.Matches {
		out = append(out, m.Events...)
	}
	slices.SortFunc(out, func(a, b *nostr.Event) int {
		return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// Count is the number of events.
func (s *Season) Count() int {
	n := 0
	for _, m := range s.Matches {
		n += len(m.Events)
	}
	return n
}

// Plans counts matches by scenario.
func (s *Season) Plans() map[string]int {
	out := map[string]int{}
	for _, m := range s.Matches {
		out[m.Plan]++
	}
	return out
}
