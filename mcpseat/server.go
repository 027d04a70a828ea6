package mcpseat

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// Config is one agent's server: its seat (key, relays, clock) and the
// server's version string.
type Config struct {
	Seat    *seat.Seat
	Version string
}

// instructions is the server's initialize answer, read by clients that
// show it to the model: the loop of a game in a few lines. As in the rules,
// names in backticks are tools, arguments or answer fields.
var instructions = "vesper: " + match.NounList() + " over Nostr. One key plays; every action is a signed event, " +
	"checked against the rules before it is signed (a refusal publishes nothing and names its `rule`). " +
	"Play a game: `challenge` (or `open_challenges` + `accept`), then loop on `wait_turn`, which answers a `reason` and the match's `status`: " +
	"on \"my_turn\" pick one of `legal_moves` and `play` it; on \"game_over\" (`must_sign` is true) call `sign_result`; " +
	"on \"final\" (`final` is true) the game is done; on \"timeout\" call `wait_turn` again. " +
	"The challenger is the first player: " + match.SidesText(match.First) + ". " +
	"" + match.Span(match.MoveClock) + " per move. A result counts for ratings only once final. Read the resource " + RulesURI + " for the rules."

// New builds the MCP server of one seat. The seat must have a key.
func New(cfg Config) *mcp.Server {
	v := cfg.Version
	if v == "" {
		v = "dev"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "vesper", Title: "vesper: " + match.NounList() + " over Nostr", Version: v},
		&mcp.ServerOptions{Instructions: instructions})
	t := &tools{seat: cfg.Seat}
	t.register(s)
	s.AddResource(&mcp.Resource{
		URI: RulesURI, Name: "rules", Title: "How to play on vesper",
		Description: "The protocol's rules a player needs: roles, move formats, clocks, results and finality.",
		MIMEType:    "text/markdown",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: RulesURI, MIMEType: "text/markdown", Text: rulesText}}}, nil
	})
	// Some clients show prompts but not resources; the same text serves both.
	s.AddPrompt(&mcp.Prompt{Name: "rules", Title: "How to play on vesper", Description: "The rules of vesper's games, for the model."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{
				Description: "The rules of vesper's games",
				Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: rulesText}}},
			}, nil
		})
	return s
}

// Identity is whoami's answer.
type Identity struct {
	Pubkey string `json:"pubkey" jsonschema:"this key's public key, 64 lowercase hex"`
	Npub   string `json:"npub" jsonschema:"the same key as npub1..."`
}

func identity(pk string) Identity { return Identity{Pubkey: pk, Npub: nostr.Npub(pk)} }
