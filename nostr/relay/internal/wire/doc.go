// Package wire is one websocket connection to one relay, speaking NIP-01
// itself (see nostr/relay's doc for why not go-nostr's Relay): a reader
// goroutine and a dispatcher that delivers events in wire order through
// the strict gate (nostr.ParseEvent, id, batched signatures), REQ and
// EOSE, OK, CLOSED and NOTICE, NIP-42 AUTH, and the reading of a relay's
// machine-readable reason prefixes (reason.go). Pager (page.go) reads
// everything a filter matches, however few events the relay returns per
// query.
//
// Files: conn.go (Conn, Dial, writes), read.go (the reader goroutine and
// its queue bound), dispatch.go (the dispatcher and the gate), envelope.go
// (one message's label and fields), sub.go (subscriptions, EOSE, CLOSED),
// auth.go (NIP-42), text.go (bounding what a relay says), page.go,
// reason.go.
//
// It is internal: the subscription client (nostr/relay) and
// reconciliation (nostr/relay/reconcile) share it, and nothing else
// should hold a raw connection.
package wire
