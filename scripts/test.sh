#!/usr/bin/env bash
# The whole test suite: installs chess.js 1.4.0 for the conformance test
# (pinned by conformance/chessjs/package-lock.json), then vets and tests
# every package, then every package again under the race detector. Extra
# arguments go to `go test`. On a loaded host, set VESPER_TEST_SCALE (see
# internal/testkit.Scale); .ci/run sets it.
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
# The race detector over every package. -short leaves out what the step
# above already ran and what is long and sequential under the detector
# (the simulated season, the hostile-relay run, the deep perft and
# chess.js sweeps, the store's kill -9 loop): on a loaded two-core host the
# season alone took 18 minutes under -race. The end-to-end tests of
# cmd/vesper run the daemon as a separate, uninstrumented binary; their
# in-process halves are checked. Tests reach no go-nostr Relay or Pool
# (whose Close races with its own writer goroutine): see internal/sim's
# fetchRelay.
go test -race -short -timeout 30m "$@" ./...
