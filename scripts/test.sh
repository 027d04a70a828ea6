#!/usr/bin/env bash
# The whole test suite: installs chess.js 1.4.0 for the conformance test
# (pinned by conformance/chessjs/package-lock.json), then vets and tests
# every package, then every package again under the race detector. Extra
# arguments go to `go test`. On a loaded host, set VESPER_TEST_SCALE (see
# internal/testkit.Scale); .ci/run sets it.
#
# It stops at the first step that fails: when `go test ./...` fails, the
# race step has not run. The trap below says so; run that step alone with
# `go test -race -short ./...` once the failure is fixed. The quick loop
# while changing code is `go test -short ./...` (docs/CONTRIBUTING.md).
set -euo pipefail
step=setup
trap 'echo "scripts/test.sh: stopped at the first failure, in step: $step (the steps after it did not run)" >&2' ERR
cd "$(dirname "$0")/.."
if [ ! -d conformance/chessjs/node_modules/chess.js ]; then
	npm ci --prefix conformance/chessjs --no-audit --no-fund >/dev/null
fi
# The clients agents and hosts run (MCP TypeScript SDK, nostr-tools), for the
# interoperability tests, pinned by conformance/interop/package-lock.json,
# and the site's checkers (axe-core, html-validate): a checkout installed
# before one of them was added installs again.
if [ ! -d conformance/interop/node_modules/nostr-tools ] || [ ! -d conformance/interop/node_modules/html-validate ]; then
	npm ci --prefix conformance/interop --no-audit --no-fund >/dev/null
fi
step="go vet"
go vet ./...
step="go test"
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
step="go test -race -short"
go test -race -short -timeout 30m "$@" ./...
