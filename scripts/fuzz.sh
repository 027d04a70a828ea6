#!/usr/bin/env bash
# Runs every Go fuzz target in the tree, one after the other, for FUZZTIME
# each (default 60s). Not part of CI: a full pass takes a few minutes per
# target. A failure leaves the crashing input in PKG/testdata/fuzz/TARGET/
# (check it in once fixed: it becomes a regression seed) and makes the
# script exit 1 after the remaining targets have run.
#
#   ./scripts/fuzz.sh                      # every target, 60 s each
#   FUZZTIME=10m ./scripts/fuzz.sh match   # only targets under ./match
#
# FUZZMINIMIZE bounds the minimisation of each new interesting input
# (default 200x): with large seeds such as match.json files, Go's default
# of 60 s per input stalls every worker for minutes at a time.
set -uo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-60s}
minimize=${FUZZMINIMIZE:-200x}
filter=${1:-}

mapfile -t targets < <(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(' . |
	sed -E 's#^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($#\1 \2#' | sort -u)

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi

failed=()
ran=0
for t in "${targets[@]}"; do
	dir=${t% *}
	name=${t#* }
	if [ -n "$filter" ] && [[ "$dir" != "$filter"* ]]; then
		continue
	fi
	echo "== ./$dir $name ($fuzztime)"
	ran=$((ran + 1))
	if ! go test "./$dir" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize"; then
		failed+=("./$dir $name")
	fi
done

echo "fuzz.sh: $ran target(s) run, ${#failed[@]} failed"
for f in "${failed[@]}"; do
	echo "  FAILED: $f"
done
[ ${#failed[@]} -eq 0 ]
