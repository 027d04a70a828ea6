package model

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"vesper/internal/pause"
	"vesper/nostr"
	"vesper/play"
)

// Player is a model as a play.Mover: one call per decision (the runner
// asks again on a refused answer, up to its retries), each streamed, its
// usage measured and priced.
type Player struct {
	Provider Provider
	// Name is "provider/model" as given to --model; Model the part after
	// the slash, as the API knows it.
	Name, Model string
	Settings    Settings
	Prices      Prices
	Ledger      *Ledger
	// Timeout is the answer time: retries of 429 and 5xx happen inside it.
	Timeout time.Duration
	// Backoff is the first wait after a 429 or 5xx without Retry-After [1s],
	// doubled each time.
	Backoff time.Duration
	// Think receives the streamed text, chunk by chunk; Note the cost lines.
	Think func(match string, ply int, chunk string)
	Note  func(match string, ply int, note string)
	// Abort ends the run (a key the API refuses will not get better).
	Abort func(error)
}

// AuthError is a key the API refused: the run ends with it.
type AuthError struct{ Msg string }

func (e *AuthError) Error() string { return e.Msg }

// Describe names the player in the records: model, template and the
// generation settings.
func (p *Player) Describe() string {
	s := "model:" + p.Name + " (" + TemplateVersion + " #" + Hash()
	if set := p.Settings.String(); set != "" {
		s += "; " + set
	}
	return s + ")"
}

// Close does nothing: the client holds no process.
func (p *Player) Close() error { return nil }

// Choose asks the model once. Every answer, refused or not, carries the
// usage of the calls it took (Answer.Usage), so that the runner can sum a
// move's attempts.
func (p *Player) Choose(ctx context.Context, req play.Request) play.Choice {
	start := time.Now()
	ctx, cancel := context.WithDeadline(ctx, p.deadline(req, start))
	defer cancel()
	think := func(s string) {
		if p.Think != nil {
			p.Think(req.Match, req.Ply, s)
		}
	}
	reply, err := p.call(ctx, Prompt(p.Name, req), think)
	u := p.usage(reply, time.Since(start))
	ch := p.choice(reply, err)
	if !u.Empty() {
		ch.Answer.Usage = []byte(u.JSON())
	}
	p.account(req, u)
	return ch
}

func (p *Player) deadline(req play.Request, start time.Time) time.Time {
	t := p.Timeout
	if t <= 0 {
		t = 2 * time.Minute
	}
	d := start.Add(t)
	if req.Deadline != nil {
		// Leave the seat a minute to sign before the game's own clock.
		if c := time.Unix(req.Deadline.Unix, 0).Add(-time.Minute); c.Before(d) && c.After(start) {
			d = c
		}
	}
	return d
}

// call streams one answer, retrying 429 and 5xx while the answer time
// allows the wait (Retry-After when the API gives one, else Backoff
// doubled). got carries what the calls reported.
func (p *Player) call(ctx context.Context, m Messages, think func(string)) (Reply, error) {
	wait := p.Backoff
	if wait <= 0 {
		wait = time.Second
	}
	for {
		r, err := p.Provider.Stream(ctx, p.Model, m, p.Settings, think)
		var ae *APIError
		if err == nil || !errors.As(err, &ae) || !(ae.Status == 429 || ae.Status >= 500) {
			return r, err
		}
		w := wait
		if ae.RetryAfter > 0 {
			w = ae.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(w).After(dl) {
			return r, &retryError{last: ae, wait: w}
		}
		if !pause.For(ctx, w) {
			return r, ctx.Err()
		}
		wait *= 2
	}
}

// retryError is a 429 or 5xx whose next try would end past the answer time.
type retryError struct {
	last *APIError
	wait time.Duration
}

func (e *retryError) Error() string {
	return fmt.Sprintf("%v; the next try (in %v) would end past the answer time", e.last, e.wait)
}

// usage is one answer's usage: absent counts stay absent; the cost only
// when the table prices the model and both counts are known.
func (p *Player) usage(r Reply, took time.Duration) nostr.Usage {
	u := nostr.Usage{InputTokens: r.Input, OutputTokens: r.Output, ReasoningTokens: r.Reasoning}
	ms := float64(took.Milliseconds())
	u.LatencyMS = &ms
	if c, ok := p.Prices.Cost(p.Name, r.Input, r.Output); ok {
		u.CostUSD = &c
	}
	return u
}

// account adds the answer's cost to the run's ledger and says where the
// game, the model and the run stand.
func (p *Player) account(req play.Request, u nostr.Usage) {
	if p.Ledger == nil || u.CostUSD == nil {
		return
	}
	game, mdl, run := p.Ledger.Add(req.Match, p.Name, *u.CostUSD)
	if p.Note != nil {
		p.Note(req.Match, req.Ply, fmt.Sprintf("cost: this answer $%.6f, this game $%.6f, %s $%.6f, the run $%.6f (prices of %s)",
			*u.CostUSD, game, p.Name, mdl, run, p.Prices.Date))
	}
}

// choice turns a reply or a fault into the runner's Choice, each fault
// with its own message.
func (p *Player) choice(r Reply, err error) play.Choice {
	if err != nil {
		why := p.fault(err)
		return play.Choice{Kind: play.KindFailed, Why: why}
	}
	ans, before, kind, why := Extract(r.Text)
	reasoning := fitReveal(strings.TrimSpace(strings.TrimSpace(r.Thinking) + "\n\n" + before))
	if kind != "" {
		if r.CutOff {
			kind, why = play.KindUnparsable, fmt.Sprintf("the answer was cut off by max_tokens%s before its JSON block (raise --max-tokens)", p.limitText())
		}
		return play.Choice{Kind: kind, Why: why, Answer: play.Answer{Reasoning: reasoning}}
	}
	ans.Reasoning = reasoning
	return play.Choice{Answer: ans}
}

func (p *Player) limitText() string {
	if p.Settings.MaxTokens > 0 {
		return fmt.Sprintf(" (%d)", p.Settings.MaxTokens)
	}
	return ""
}

// fault is the message of a failed call; a refused key also ends the run.
func (p *Player) fault(err error) string {
	var ae *APIError
	var re *retryError
	var ne *NetError
	keyVar := p.Provider.KeyVar()
	baseVar := strings.Replace(keyVar, "API_KEY", "BASE_URL", 1)
	switch {
	case errors.As(err, &re):
		if re.last.Status == 429 {
			return "rate limited by the API (" + re.Error() + ")"
		}
		return "the API failed (" + re.Error() + ")"
	case errors.As(err, &ae) && (ae.Status == 401 || ae.Status == 403):
		msg := fmt.Sprintf("the API at %s refused the key (%v): set %s to a valid key for %s", p.Provider.Endpoint(), ae, keyVar, p.Name)
		if p.Abort != nil {
			p.Abort(&AuthError{Msg: msg})
		}
		return msg
	case errors.As(err, &ae) && ae.Status == 404:
		return fmt.Sprintf("the API at %s does not know the model %q (%v): check the name after %q in --model", p.Provider.Endpoint(), p.Model, ae, strings.SplitN(p.Name, "/", 2)[0]+"/")
	case errors.As(err, &ae):
		return fmt.Sprintf("the API refused the request (%v)", ae)
	case errors.As(err, &ne):
		return fmt.Sprintf("cannot reach the endpoint %s (%s): is it running, and is %s right?", p.Provider.Endpoint(), ne.Msg, baseVar)
	case errors.Is(err, context.DeadlineExceeded):
		return "no complete answer within the answer time"
	}
	return err.Error()
}

// Ledger is the run's spending: per game, per model and in all.
type Ledger struct {
	mu     sync.Mutex
	total  float64
	games  map[string]float64
	models map[string]float64
}

// Add books usd for a game of model and returns the new sums.
func (l *Ledger) Add(game, model string, usd float64) (gameSum, modelSum, total float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.games == nil {
		l.games, l.models = map[string]float64{}, map[string]float64{}
	}
	l.games[game] += usd
	l.models[model] += usd
	l.total += usd
	return l.games[game], l.models[model], l.total
}

// Total is what the run has spent.
func (l *Ledger) Total() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

// Game is what one game has cost.
func (l *Ledger) Game(id string) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.games[id]
}

// MaxReasoning is the most bytes of a move's committed reasoning: the
// reveal of one entry must fit one event (PROTOCOL.md sections 1 and 8.2),
// and JSON escaping may grow the text. The stream printed live keeps all.
const MaxReasoning = 32 << 10

// fitReveal keeps the end of a reasoning too long to reveal (its
// conclusion), saying how much was cut.
func fitReveal(s string) string {
	if len(s) <= MaxReasoning {
		return s
	}
	cut := len(s) - MaxReasoning
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return fmt.Sprintf("[the first %d bytes of the thinking are cut to fit a reveal event]\n", cut) + s[cut:]
}
