package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"

	"vesper/match"
	"vesper/nostr"
	"vesper/play"
	"vesper/play/model"
	"vesper/seat"
)

// modelFlags are `vesper play --model`'s flags.
func modelFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model", Usage: "a language model as the player: openai/NAME (any Chat Completions endpoint: OPENAI_BASE_URL, OPENAI_API_KEY) or anthropic/NAME (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY)"},
		&cli.Float64Flag{Name: "temperature", Usage: "with --model: the sampling temperature (unset: the provider's default)"},
		&cli.Int64Flag{Name: "max-tokens", Usage: "with --model: the most tokens one answer may take (unset: the provider's default; Anthropic needs one: 8192)"},
		&cli.StringFlag{Name: "reasoning-effort", Usage: "with --model: the reasoning effort the API takes (e.g. low, medium, high)"},
		&cli.StringFlag{Name: "price-file", Usage: "with --model: a price table `FILE` ({\"date\": ..., \"models\": {\"openai/NAME\": {\"input\": USD per million, \"output\": ...}}}) over the pinned one"},
		&cli.Float64Flag{Name: "max-cost-usd", Usage: "with --model: take no new game once the run has spent this much (0: no limit)"},
		&cli.IntFlag{Name: "ply-cap", Usage: fmt.Sprintf("end a game at this many plies by an agreed result: chess by material (a lead of %d wins), other games a draw (default %d with --model, else 0: none)", play.MaterialLead, play.DefaultPlyCap)},
		&cli.StringFlag{Name: "name", Usage: "with --model: the profile name published for the key (default: the model)"},
	}
}

// modelRun is the state of a --model run the movers share: the ledger and
// the way to end the run on a refused key.
type modelRun struct {
	ledger model.Ledger
	prices model.Prices
	cancel context.CancelCauseFunc
}

// modelMover builds the movers of --model PROVIDER/NAME, the provider's
// base URL and key read from the environment variables its SDK reads.
func modelMover(c *cli.Context, run *modelRun, think func(match string, ply int, chunk string), note func(match string, ply int, text string)) (func(string) play.Mover, error) {
	name := c.String("model")
	prov, mdl, ok := strings.Cut(name, "/")
	if !ok || mdl == "" {
		return nil, fail(exitUsage, "--model %q: want PROVIDER/MODEL, e.g. openai/gpt-4o or anthropic/claude-sonnet-4-0", name)
	}
	var p model.Provider
	switch prov {
	case "openai":
		key := os.Getenv("OPENAI_API_KEY")
		if key == "" && os.Getenv("OPENAI_BASE_URL") == "" {
			return nil, fail(exitUsage, "--model %s: set OPENAI_API_KEY (and OPENAI_BASE_URL for an endpoint other than OpenAI's)", name)
		}
		p = model.NewOpenAI(os.Getenv("OPENAI_BASE_URL"), key, nil)
	case "anthropic":
		key := os.Getenv("ANTHROPIC_API_KEY")
		if key == "" {
			return nil, fail(exitUsage, "--model %s: set ANTHROPIC_API_KEY", name)
		}
		p = model.NewAnthropic(os.Getenv("ANTHROPIC_BASE_URL"), key, nil)
	default:
		return nil, fail(exitUsage, "--model %q: the provider must be openai or anthropic, not %q", name, prov)
	}
	run.prices = model.Pinned()
	if f := c.String("price-file"); f != "" {
		pr, err := model.LoadPrices(f)
		if err != nil {
			return nil, fail(exitUsage, "%v", err)
		}
		run.prices = pr
	}
	set := model.Settings{MaxTokens: c.Int64("max-tokens"), ReasoningEffort: c.String("reasoning-effort")}
	if c.IsSet("temperature") {
		t := c.Float64("temperature")
		set.Temperature = &t
	}
	if _, priced := run.prices.Models[name]; !priced {
		note("", 0, fmt.Sprintf("the price table of %s has no price for %s: usage without cost_usd (--price-file adds one)", run.prices.Date, name))
	}
	return func(string) play.Mover {
		return &model.Player{Provider: p, Name: name, Model: mdl, Settings: set, Prices: run.prices, Ledger: &run.ledger,
			Timeout: c.Duration("agent-timeout"), Think: think, Note: note,
			Abort: func(err error) { run.cancel(err) }}
	}, nil
}

// modelBudget is --max-cost-usd as the runner's Budget.
func modelBudget(c *cli.Context, run *modelRun) func() string {
	limit := c.Float64("max-cost-usd")
	if limit <= 0 {
		return nil
	}
	return func() string {
		if spent := run.ledger.Total(); spent >= limit {
			return fmt.Sprintf("the run has spent $%.4f, --max-cost-usd is $%.4f: no new game is taken", spent, limit)
		}
		return ""
	}
}

// plyCap is --ply-cap, DefaultPlyCap for a model unless set.
func plyCap(c *cli.Context) int {
	if c.IsSet("ply-cap") || c.String("model") == "" {
		return max(0, c.Int("ply-cap"))
	}
	return play.DefaultPlyCap
}

// publishModelProfile states the model and the prompt template in the key's
// profile (PROTOCOL.md section 8.4), so that games are compared only under
// the same template.
func publishModelProfile(ctx context.Context, c *cli.Context, s *seat.Seat) error {
	name := c.String("model")
	prov, mdl, _ := strings.Cut(name, "/")
	shown := c.String("name")
	if shown == "" {
		shown = mdl
	}
	_, err := s.PublishProfile(ctx, nostr.Profile{Name: shown, About: "plays through vesper play --model " + name,
		Agent: nostr.Agent{Model: mdl, Provider: prov, Harness: model.Harness()}})
	return err
}

// lineWriter prints the runner's lines and the model's streamed thinking:
// --json one object per line (thinking: one per chunk), else text, the
// thinking as it comes.
type lineWriter struct {
	mu       sync.Mutex
	json     bool
	midThink bool
}

func (lw *lineWriter) line(l play.Line) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.json {
		os.Stdout.Write(match.MarshalLine(l))
		return
	}
	if l.Type == "thinking" {
		fmt.Fprint(os.Stdout, l.Note)
		lw.midThink = !strings.HasSuffix(l.Note, "\n")
		return
	}
	if lw.midThink {
		fmt.Fprintln(os.Stdout)
		lw.midThink = false
	}
	fmt.Fprintln(os.Stdout, lineText(l))
}
