#!/usr/bin/env bash
# The whole test suite: installs chess.js 1.4.0 for the conformance test
# (pinned by conformance/chessjs/package-lock.json), then vets and tests
# every package. Extra arguments go to `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d conformance/chessjs/node_modules/chess.js ]; then
	npm ci --prefix conformance/chessjs --no-audit --no-fund >/dev/null
fi
go vet ./...
go test -timeout 30m "$@" ./...
