package site

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"vesper/ratings"
)

// BuildEach is Build for a store too large to hold folded: it folds the
// matches ids one at a time with load, renders each match's files at once
// and keeps only its card, so that memory follows the cards (a few hundred
// bytes a match), not the events (a folded 10,000-match store held 2.6 GB).
// The output is byte for byte Build's of the same states.
//
// A final game's page shows the players' ratings at that game, which
// depend on every other result, so they must be known before the first
// page: in.RatingGames is the caller's forecast of them (what RatingGames
// would give of the folded states, such as the stored summaries say). The
// build checks the forecast against the cards it made; when it was wrong
// (summaries of an older fold, or a store that changed meanwhile) the
// build is discarded and made once more with what the cards said, so a
// wrong forecast costs time, never a wrong page. in.States, in.SeenAt and
// in.Ratings are not used. Only one Build, BuildEach or Update may run for
// an outDir at a time.
func BuildEach(in Input, ids []string, load Loader, outDir string) (Stats, error) {
	if load == nil {
		return Stats{}, errors.New("site: BuildEach needs a loader")
	}
	in.States, in.SeenAt, in.Ratings = nil, nil, nil
	for attempt := 0; ; attempt++ {
		stats, games, err := buildEach(in, ids, load, outDir)
		stats.Passes = attempt + 1
		if !errors.Is(err, errForecast) {
			return stats, err
		}
		if attempt > 0 {
			return stats, errors.New("site: the matches' results changed during the build")
		}
		in.RatingGames = games
	}
}

// errForecast: the folded matches' rated games are not the forecast.
var errForecast = errors.New("site: the rated games are not the ones forecast")

func buildEach(in Input, ids []string, load Loader, outDir string) (Stats, map[string][]ratings.Game, error) {
	b, err := newBuilder(in)
	if err != nil {
		return Stats{}, nil, err
	}
	b.rate()
	o, err := openOutput(outDir)
	if err != nil {
		return Stats{}, nil, err
	}
	if err := b.mkdirs(o); err != nil {
		o.abort()
		return Stats{}, nil, err
	}
	skipped, err := b.eachMatch(o, ids, load)
	if err != nil {
		o.abort()
		return o.result(), nil, err
	}
	o.stats.Skipped = int(skipped)
	games := cardGames(b.cards)
	if !sameGames(games, in.RatingGames) {
		o.abort()
		return Stats{}, games, errForecast
	}
	b.index()
	if err := b.otherPages(o); err != nil {
		o.abort()
		return o.result(), nil, err
	}
	if err := o.writeCards(b.cards); err != nil {
		o.abort()
		return o.result(), nil, err
	}
	if err := o.publish(outDir); err != nil {
		o.abort()
		return o.result(), nil, err
	}
	return o.result(), nil, nil
}

// eachMatch folds and renders the matches ids on one goroutine per CPU,
// holding a state only while its files are made. It counts the states
// Build would skip (see Stats).
func (b *builder) eachMatch(o *output, ids []string, load Loader) (int64, error) {
	var next, skipped atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	seen := make(map[string]bool, len(ids))
	var seenMu sync.Mutex
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(ids) {
					return
				}
				s, seenAt, err := load(ids[i])
				if err != nil {
					errs[w] = fmt.Errorf("site: match %s: %w", ids[i], err)
					next.Store(int64(len(ids))) // the others stop at their next match
					return
				}
				if s == nil {
					continue
				}
				seenMu.Lock()
				dup := seen[s.Match]
				seen[s.Match] = true
				seenMu.Unlock()
				if !folded(s) || dup {
					skipped.Add(1)
					continue
				}
				g, later := b.heldAnalysis(s.Match)
				c := newCard(s, seenAt, g)
				c.gradeLater = later
				c.Idle = b.idleSince(s)
				b.mu.Lock()
				b.cards = append(b.cards, c)
				b.byID[c.ID] = c
				b.states[c.ID] = full{s: s, seen: seenAt}
				b.mu.Unlock()
				err = b.matchFiles(o, c)
				b.mu.Lock()
				delete(b.states, c.ID)
				b.mu.Unlock()
				if err != nil {
					errs[w] = err
					next.Store(int64(len(ids)))
					return
				}
			}
		}()
	}
	wg.Wait()
	return skipped.Load(), errors.Join(errs...)
}

// sameGames compares two sets of rated games by kind, in no order.
func sameGames(a, b map[string][]ratings.Game) bool {
	for _, kind := range kinds {
		x, y := slices.Clone(a[kind]), slices.Clone(b[kind])
		if len(x) != len(y) {
			return false
		}
		byMatch := func(p, q ratings.Game) int { return strings.Compare(p.Match, q.Match) }
		slices.SortFunc(x, byMatch)
		slices.SortFunc(y, byMatch)
		if !slices.Equal(x, y) {
			return false
		}
	}
	for kind := range b {
		if !slices.Contains(kinds[:], kind) && len(b[kind]) > 0 {
			return false
		}
	}
	return true
}
