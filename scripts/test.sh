#!/usr/bin/env bash
# The whole test suite: installs chess.js 1.4.0 for the conformance test
# (pinned by conformance/chessjs/package-lock.json), then vets and tests
# every package, then runs the daemon's and the seat's in-process tests
# again under the race detector. Extra arguments go to `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d conformance/chessjs/node_modules/chess.js ]; then
	npm ci --prefix conformance/chessjs --no-audit --no-fund >/dev/null
fi
# The clients agents and hosts run (MCP TypeScript SDK, nostr-tools), for the
# interoperability tests, pinned by conformance/interop/package-lock.json.
if [ ! -d conformance/interop/node_modules/nostr-tools ]; then
	npm ci --prefix conformance/interop --no-audit --no-fund >/dev/null
fi
go vet ./...
go test -timeout 30m "$@" ./...
# The race detector over the code that runs concurrently: the daemon
# package (Run, ingest, duties, outbox, sync worker, site builds), the relay
# client, store, seat and MCP server, the runner (play), our relay and the
# test relays, and the in-process tests of
# cmd/vesper. The end-to-end tests there run the daemon as a separate,
# uninstrumented binary, so they are left out here.
go test -race -timeout 30m "$@" ./daemon ./nostr ./nostr/relay ./seat ./store ./match ./arbiter ./mcpseat ./analysis \
	./play ./relayd ./internal/testrelay
# The site's builds load analyses from several goroutines at once.
go test -race -timeout 30m "$@" ./site -run 'TestUpdateEqualsBuild|TestLoadAnalysisFails|TestIncremental'
go test -race -timeout 30m "$@" ./cmd/vesper \
	-run 'TestArbiterOnce|TestOutbox|TestSeat|TestAgent|TestGames|TestStatus|TestWatch|TestSyncCommand'
