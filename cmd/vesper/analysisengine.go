// The analysis engine as flags choose it, shared by `vesper analyse`, the
// daemon's background analysis, the demo and the simulator.

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"vesper/analysis"
	"vesper/engine/connect4"
)

// analyseOpts are the analysis options with the line that says on stderr
// which engine runs, said once, when a chess game first needs it.
type analyseOpts struct {
	analysis.Options
	note string
}

// solverNodesFlag sets the Connect Four solver's node budget per position
// (analysis.Options.SolverNodes), for `vesper analyse` and the daemon.
func solverNodesFlag(name string) *cli.Int64Flag {
	return &cli.Int64Flag{Name: name, Value: connect4.DefaultBudget,
		Usage: "node budget per position of the exact Connect Four solver: a move whose position it does not prove within it is graded unknown"}
}

// solverNodes reads a solverNodesFlag: at least one node (0 would mean
// the default to the analysis package, which is not what was asked).
func solverNodes(c *cli.Context, name string) (int64, error) {
	n := c.Int64(name)
	if n < 1 {
		return 0, fail(exitUsage, "--%s must be at least 1, not %d", name, n)
	}
	return n, nil
}

// engineOptions resolves an engine choice ("stockfish", "builtin", or ""
// for Stockfish when found, else the built-in engine) for `vesper
// analyse` and the daemon's background analysis.
func engineOptions(engine, explicit string, depth int, nodes int64, nice int) (analyseOpts, error) {
	o := analyseOpts{Options: analysis.Options{Depth: depth, Nodes: nodes, Nice: nice}}
	if o.Depth < 0 || o.Nodes < 0 {
		return o, fail(exitUsage, "--depth and --nodes must not be negative")
	}
	switch engine {
	case "builtin":
		if explicit != "" {
			return o, fail(exitUsage, "--stockfish goes with --engine stockfish, not builtin")
		}
		o.note = "analysing with the built-in engine"
	case "stockfish":
		path, err := analysis.FindStockfish(explicit)
		if err != nil {
			return o, fail(exitFailure, "%v (give --stockfish PATH, or --engine builtin)", err)
		}
		o.Path, o.note = path, "analysing with Stockfish at "+path
	case "":
		path, err := analysis.FindStockfish(explicit)
		switch {
		case err == nil:
			o.Path, o.note = path, "analysing with Stockfish at "+path
		case explicit != "":
			return o, fail(exitFailure, "%v", err)
		default:
			o.note = "no Stockfish found (not on PATH, not at " + analysis.DebianStockfish + "): analysing with the built-in engine"
		}
	default:
		return o, fail(exitUsage, "--engine must be stockfish or builtin, not %q", engine)
	}
	switch {
	case o.Depth > 0 && o.Nodes > 0:
		o.note += fmt.Sprintf(", depth %d, at most %d nodes per position", o.Depth, o.Nodes)
	case o.Depth > 0:
		o.note += fmt.Sprintf(", depth %d", o.Depth)
	case o.Nodes > 0:
		o.note += fmt.Sprintf(", %d nodes per position", o.Nodes)
	case o.Path != "":
		o.note += fmt.Sprintf(", depth %d", analysis.DefaultDepth)
	default:
		o.note += fmt.Sprintf(", %d nodes per position", analysis.DefaultBuiltinNodes)
	}
	return o, nil
}
