package daemon

import (
	"context"
	"time"

	"vesper/analysis"
	"vesper/internal/pause"
	"vesper/store"
)

// AnalysisOptions turn on the daemon's move analysis of finished games
// (issue 18): one game at a time, in the background, persisted in the
// store, never in the way of ingest, duties or the site build.
type AnalysisOptions struct {
	Engine analysis.Options
	// Share bounds the CPU the analysis takes: after a game that took T,
	// the worker rests T·(1/Share − 1) before the next one [0.5: at most
	// half of one core]. Stockfish also runs at Engine.Nice.
	Share float64
	// Idle is the longest wait between two looks at the store when
	// nothing is left to analyse; a match turning final wakes it at once
	// [1 minute].
	Idle time.Duration
}

// analyst is the worker's state shared with keepAll, which wakes it.
type analyst struct {
	opts AnalysisOptions
	wake chan struct{}
}

func (n *Daemon) wakeAnalyst() {
	if n.analyst == nil {
		return
	}
	select {
	case n.analyst.wake <- struct{}{}:
	default:
	}
}

// analyseBatch is how many games the analyser takes from the store's
// queue at a time. A match turning final makes it read the queue again
// after the game in hand, so the batch only bounds how often a backlog
// is re-read (issue 38 item 3: 64 junk games once stood ahead of a real
// one).
const analyseBatch = 16

// analyse grades the store's final games, oldest first, until ctx ends.
// A game whose analysis fails is stored as failed (the site then shows
// none): a game that always fails is not retried for ever.
func (n *Daemon) analyse(ctx context.Context) {
	share, idle := n.analyst.opts.pace()
	an, err := analysis.New(n.analyst.opts.Engine)
	if err != nil {
		n.log.Error("analysis off", "err", err)
		return
	}
	defer an.Close()
	n.log.Info("analysing finished games", "engine", an.Engine().String(), "share", share)
	n.analyseQueue(ctx, func(ctx context.Context, id string) (time.Duration, bool) {
		return n.analyseNext(ctx, an, id)
	}, share, idle)
}

// analyseQueue grades the queue's games with grade, one at a time, until
// ctx ends or grade fails. The queue is read a batch at a time: the query
// sorts every final game without an analysis (0.5 s at 100,000 matches),
// which per game would cost a seventh of a Stockfish grade. But a match
// that turns final meanwhile (the worker is woken) makes it read the queue
// again after the game in hand: the listed players' games come first
// (unanalysed), so a real game waits for at most one game of a backlog,
// however many strangers' games were queued before it.
func (n *Daemon) analyseQueue(ctx context.Context, grade func(context.Context, string) (time.Duration, bool), share float64, idle time.Duration) {
	var queue []string
	for ctx.Err() == nil {
		select {
		case <-n.analyst.wake:
			queue = nil
		default:
		}
		if len(queue) == 0 {
			if queue = n.unanalysed(ctx); len(queue) == 0 {
				if !n.analystIdle(ctx, idle) {
					return
				}
				continue
			}
		}
		took, ok := grade(ctx, queue[0])
		queue = queue[1:]
		if !ok || !pause.For(ctx, time.Duration(float64(took)*(1/share-1))) {
			return
		}
	}
}

// pace is the share of a core the analysis takes and its longest idle
// wait, the defaults in place of values out of range.
func (o AnalysisOptions) pace() (share float64, idle time.Duration) {
	share, idle = o.Share, o.Idle
	if share <= 0 || share > 1 {
		share = 0.5
	}
	if idle <= 0 {
		idle = time.Minute
	}
	return share, idle
}

// unanalysed is the next batch of the queue, nil when it is empty or the
// store failed: the listed players' games (those the site lists, every
// game with --list-all) when any waits, else anybody's.
func (n *Daemon) unanalysed(ctx context.Context) []string {
	listed, err := n.listedPlayers(ctx)
	var ids []string
	if err == nil && listed != nil {
		ids, err = n.st.UnanalysedOf(ctx, analysis.GradedKinds(), listed, analyseBatch)
	}
	if err == nil && len(ids) == 0 {
		ids, err = n.st.Unanalysed(ctx, analysis.GradedKinds(), analyseBatch)
	}
	if err != nil {
		if ctx.Err() == nil {
			n.log.Error("analysis: store", "err", err)
		}
		return nil
	}
	return ids
}

// analystIdle waits idle, or for a match to turn final; false once ctx
// has ended.
func (n *Daemon) analystIdle(ctx context.Context, idle time.Duration) bool {
	t := time.NewTimer(idle)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-n.analyst.wake:
	}
	return true
}

// analyseNext grades the game id and stores its grade, returning how long
// it took; false when ctx ended or the store failed (the worker stops).
func (n *Daemon) analyseNext(ctx context.Context, an *analysis.Analyser, id string) (time.Duration, bool) {
	start := time.Now()
	g, err := analyseStored(ctx, n.st, an, id, n.clock())
	if ctx.Err() != nil {
		return 0, false // stopped mid-game: nothing stored, the next run redoes it
	}
	took := time.Since(start)
	if err != nil {
		if ctx.Err() == nil {
			n.log.Error("analysis: store", "err", err)
		}
		return 0, false
	}
	n.siteChanged(g.Match)
	if g.Status == analysis.StatusDone {
		n.log.Info("analysed", "match", g.Match, "moves", len(g.Moves), "took", took.Round(time.Millisecond))
	} else {
		n.log.Warn("analysis failed", "match", g.Match, "err", g.Error)
	}
	return took, true
}

// analyseStored grades one stored final game and stores the grade (or why
// there is none), unless ctx ended meanwhile.
func analyseStored(ctx context.Context, st *store.Store, an *analysis.Analyser, id string, now int64) (*analysis.Game, error) {
	g := analyseOne(ctx, st, an, id)
	if ctx.Err() != nil {
		return g, ctx.Err()
	}
	return g, st.PutAnalysis(ctx, store.Analysis{Match: g.Match, Status: string(g.Status),
		Engine: g.Engine.String(), JSON: analysis.Marshal(g), UpdatedAt: now})
}

// AnalyseAll grades every final game of the store that has no analysis
// yet, one after another (`vesper sim` before its site build), and
// reports how many it graded and how many failed.
func AnalyseAll(ctx context.Context, st *store.Store, opts analysis.Options, now int64) (done, failed int, err error) {
	an, err := analysis.New(opts)
	if err != nil {
		return 0, 0, err
	}
	defer an.Close()
	ids, err := st.Unanalysed(ctx, analysis.GradedKinds(), 0)
	if err != nil {
		return 0, 0, err
	}
	for _, id := range ids {
		g, err := analyseStored(ctx, st, an, id, now)
		if err != nil {
			return done, failed, err
		}
		if g.Status == analysis.StatusDone {
			done++
		} else {
			failed++
		}
	}
	return done, failed, nil
}

// analyseOne grades one stored final game, or says why it could not.
func analyseOne(ctx context.Context, st *store.Store, an *analysis.Analyser, id string) *analysis.Game {
	s, _, err := foldOne(ctx, st, id)
	if err == nil && s == nil {
		return &analysis.Game{Format: analysis.FormatVersion, Match: id, Status: analysis.StatusFailed,
			Engine: an.Engine(), Error: "the stored events hold no valid match"}
	}
	if err != nil {
		return &analysis.Game{Format: analysis.FormatVersion, Match: id, Status: analysis.StatusFailed,
			Engine: an.Engine(), Error: err.Error()}
	}
	g, err := an.Analyse(ctx, s)
	if err != nil {
		return an.Failed(s, err)
	}
	return g
}
