package play_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/match/gomoku"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/play"
	"vesper/relayd"
	"vesper/seat"
)

// instant is a mover with no engine time: a random legal point.
type instant struct{ r *rand.Rand }

func (m *instant) Choose(_ context.Context, req play.Request) play.Choice {
	l := req.Legal[m.r.IntN(len(req.Legal))]
	return play.Choice{Answer: play.Answer{Move: l.Point}}
}

func (m *instant) Close() error { return nil }

// BenchmarkRunnerOverhead measures the runner's own time per move: from
// the opponent's move accepted by the relay to the runner's reply received
// from the relay by the opponent, with a mover that takes no time, so that
// what is left is the stream, the fold, the seat's read before signing and
// the publication. The opponent stamps each move one second after the
// runner's and publishes it only once the clock is past that second, so
// that the runner never waits out section 7's one-second rule: the figure
// is the runner's, not the protocol's. b.N is the number of moves
// measured, spread over the games.
func BenchmarkRunnerOverhead(b *testing.B) {
	for _, games := range []int{1, 20} {
		b.Run(fmt.Sprintf("games=%d", games), func(b *testing.B) { benchOverhead(b, games) })
	}
}

func benchOverhead(b *testing.B, games int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rl, err := relayd.Start(ctx, relayd.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer rl.Close()
	url := rl.URL()
	me, opp := testkit.Key("bench runner"), testkit.Key("bench opponent")
	r, err := play.New(play.Config{Seat: &seat.Seat{Relays: []string{url}, Key: me, Timeout: testkit.Scale(10 * time.Second)},
		Dir: benchDir(b), Policy: play.Policy{Invitations: true, MaxGames: games},
		NewMover: func(string) play.Mover { return &instant{r: rand.New(rand.NewPCG(1, 2))} }})
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = r.Run(ctx) }()

	o := &opponent{url: url, key: opp, runner: me.PublicKey(), boards: map[string]*gomoku.Game{},
		sent: map[string]time.Time{}, want: b.N, done: make(chan struct{})}
	go relay.Watch(ctx, []string{url}, []gn.Filter{
		{Kinds: []int{nostr.KindAccept}, Authors: []string{me.PublicKey()}},
		{Kinds: []int{nostr.KindMove}, Authors: []string{me.PublicKey()}},
	}, relay.WatchOptions{}, o.receive)
	b.ResetTimer()
	for range games {
		o.challenge()
	}
	select {
	case <-o.done:
	case <-time.After(testkit.Scale(30 * time.Minute)):
		b.Fatal("too slow")
	}
	b.StopTimer()
	o.mu.Lock()
	lat := slices.Clone(o.lat)
	o.mu.Unlock()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// opponent answers the runner's accepts and moves with a move of its own
// in each game, and measures the runner's replies.
type opponent struct {
	url    string
	key    nostr.SecretKey
	runner string
	mu     sync.Mutex
	boards map[string]*gomoku.Game
	sent   map[string]time.Time // match -> when the relay took our last move
	lat    []time.Duration
	want   int
	done   chan struct{}
	closed bool
}

func (o *opponent) receive(rcv relay.Received) {
	ev := rcv.Event
	at := time.Now()
	ids := nostr.MatchRefs(ev)
	if len(ids) != 1 {
		return
	}
	id := ids[0]
	o.mu.Lock()
	g := o.boards[id]
	if ev.Kind == nostr.KindAccept {
		if g != nil {
			o.mu.Unlock()
			return
		}
		g = gomoku.NewGame()
		o.boards[id] = g
	} else {
		if g == nil {
			o.mu.Unlock()
			return
		}
		if _, err := g.Move(ev.Content); err != nil {
			o.mu.Unlock()
			return
		}
		if over, _, _ := g.Outcome(); over {
			o.mu.Unlock()
			go o.challenge()
			return
		}
		if t, ok := o.sent[id]; ok {
			o.lat = append(o.lat, at.Sub(t))
			if len(o.lat) >= o.want && !o.closed {
				o.closed = true
				close(o.done)
			}
		}
	}
	// The next ply is ours: the first empty point from a fixed random walk.
	ply := len(g.Moves()) + 1
	mv := ""
	rnd := rand.New(rand.NewPCG(uint64(ply), 7))
	for mv == "" {
		p := gomoku.Point{Col: rnd.IntN(15), Row: rnd.IntN(15)}
		if g.At(p) == 0 {
			mv = p.String()
		}
	}
	if _, err := g.Move(mv); err != nil {
		o.mu.Unlock()
		return
	}
	over, _, _ := g.Outcome()
	o.mu.Unlock()
	if over {
		go o.challenge()
	}
	stamp := int64(ev.CreatedAt) + 1
	go func() {
		// Publish once the clock is past the stamp's second, so that the
		// runner's reply (stamped one second later) is not ahead of it.
		time.Sleep(time.Until(time.Unix(stamp+1, 0)))
		m := testkit.Sign(o.key, nostr.NewMove(id, ply, mv, stamp))
		res := relay.Publish(context.Background(), []string{o.url}, m, testkit.Scale(10*time.Second))
		if len(relay.Accepted(res)) == 0 {
			return
		}
		o.mu.Lock()
		o.sent[id] = time.Now()
		o.mu.Unlock()
	}()
}

// challenge invites the runner to a new game (one that ended is replaced,
// so the number of games in progress stays the same).
func (o *opponent) challenge() {
	ch := nostr.NewChallenge(nostr.GameGomoku, o.runner, time.Now().Unix())
	// A nonce, or challenges posted in one second would be one match.
	ch.Content = fmt.Sprintf(`{"game":"gomoku","nonce":"%d"}`, rand.Uint64())
	testkit.Sign(o.key, ch)
	relay.Publish(context.Background(), []string{o.url}, ch, testkit.Scale(10*time.Second))
}

// benchDir is VESPER_BENCH_DIR when set (to read the runner's records
// after a run), else a temporary directory.
func benchDir(b *testing.B) string {
	if d := os.Getenv("VESPER_BENCH_DIR"); d != "" {
		return filepath.Join(d, b.Name())
	}
	return b.TempDir()
}
