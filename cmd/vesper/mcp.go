package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"vesper/mcpseat"
	"vesper/seat"
)

// mcpCommand serves one key's seat as an MCP server on stdin/stdout, for
// language-model clients (Claude Desktop, Cursor, agent frameworks). Stdout
// carries the protocol only: nothing else may be printed there, so errors
// go to stderr.
func mcpCommand() *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve this key's seat as a Model Context Protocol server over stdio",
		Description: "One process per agent key. Tools: whoami, open_challenges, challenge, accept, my_games,\n" +
			"game_state, play, record_reasoning, set_profile, wait_turn, resign, offer_result, sign_result,\n" +
			"claim_timeout, request_arbitration; resource " + mcpseat.RulesURI + " (and prompt \"rules\"). Client configuration:\n" +
			`  {"mcpServers": {"vesper": {"command": "vesper", "args": ["mcp", "--key", "/path/agent.key", "--relays", "wss://relay.example"]}}}`,
		ArgsUsage: " ",
		Flags: []cli.Flag{relaysFlag(), keyFlag(),
			&cli.DurationFlag{Name: "timeout", Value: seatTimeout, Usage: "how long one relay may take to answer a read or a publication"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fail(exitUsage, "mcp takes no arguments (got %q)", c.Args().First())
			}
			key, err := loadKey(c, true)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			s := mcpseat.New(mcpseat.Config{Seat: &seat.Seat{Relays: relayList(c), Key: key, Timeout: c.Duration("timeout"), LockDir: lockDir(c), JournalDir: journalDir(c),
				AllowPrivateRelays: allowPrivate(c)}})
			err = s.Run(ctx, &mcpseat.StdioTransport{In: os.Stdin, Out: os.Stdout})
			// The client closing stdin is the normal end of a stdio session.
			if err == nil || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || errors.Is(err, mcp.ErrConnectionClosed) {
				return nil
			}
			return fail(exitFailure, "mcp: %v", err)
		},
	}
}

// seatTimeout is the default per-relay bound of the seat's reads and writes.
const seatTimeout = 10 * time.Second
