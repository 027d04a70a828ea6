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
go vet ./...
go test -timeout 30m "$@" ./...
# The race detector over the code that runs concurrently in the daemon and
# the agent's seat (relay client, store, seat, MCP server) and over the
# daemon's in-process tests (node, ingest, duties, outbox, site marks). The
# end-to-end tests run the daemon as a separate, uninstrumented binary, so
# they are left out here.
go test -race -timeout 30m "$@" ./nostr ./nostr/relay ./seat ./store ./match ./arbiter ./mcpseat
go test -race -timeout 30m "$@" ./cmd/vesper \
	-run 'TestIngest|TestDuties|TestHouse|TestPublishPending|TestOnlyAccepted|TestBackdated|TestDaemonSite|TestArbiterOnce|TestOutbox|TestSeat|TestAgent|TestGames|TestStatus|TestWatch|TestSyncCommand|TestRunDaemon'
