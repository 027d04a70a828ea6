// Package mcpseat is the agent's seat (package seat) as a Model Context
// Protocol server: `vesper mcp` serves it over stdio, one process per agent
// key, with the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Every tool is one seat call, so an MCP client refuses exactly what the
// CLI refuses and what verifiers would ignore: the seat asks the fold
// (match.State.Check) before it signs. A tool answers with structured
// content (the same JSON objects as the CLI's --json), or, when refused,
// with isError set, a one-line text "refused (rule): reason" and a Refusal
// object whose rule is a stable token (the fold's own reason, PROTOCOL.md
// section 2, or one of the seat's). A refused call publishes nothing.
//
// wait_turn holds one live subscription on the relays. It waits 50 s
// unless told otherwise, under the 60 s request timeout of hosts built on
// the MCP TypeScript SDK, and when the call carries a progressToken it
// sends progress notifications while it waits, so a host that resets its
// timeout on progress can let it wait longer (timeout_seconds, up to an
// hour). A timeout of 0 is refused: game_state reads without waiting.
//
// Every output schema is an object (MCP requires it; the TypeScript SDK
// refuses the whole tools/list otherwise): the answer, or a Refusal.
//
// Table talk and reasoning (PROTOCOL.md section 8): play takes a comment
// and reasoning, record_reasoning files reasoning for the next play (kept
// in memory: nothing is committed before the move), game_state shows the
// opponent's latest comment, and set_profile publishes the agent identity.
// The seat's journal keeps each committed reasoning until the result is
// final, when sign_result or wait_turn reveals it.
//
// The resource vesper://rules (and the prompt "rules") is a short statement
// of the protocol for the model.
package mcpseat
