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
// wait_turn holds one live subscription on the relays and reports MCP
// progress notifications while it waits, so a client can show that the
// call is alive and a model's harness does not time it out.
//
// The resource vesper://rules (and the prompt "rules") is a short statement
// of the protocol for the model.
package mcpseat
