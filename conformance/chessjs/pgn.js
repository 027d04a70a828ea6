'use strict';
// Loads PGNs with the real chess.js 1.4.0 `loadPgn`, the way a NIP-64
// client built on chess.js reads a kind 64 record (vesper/conformance's
// TestPGN*). Reads one JSON object per line on stdin, {"name": ..., "pgn": ...},
// and prints one per line on stdout, in the same order:
//
//   {"name": ..., "ok": true, "headers": {tag: value, ...},
//    "moves": ["e2e4", ...], "san": ["e4", ...], "fen": "<fen() at the end>"}
//   {"name": ..., "ok": false, "error": "<what loadPgn threw>"}
//
// "moves" are UCI (from, to and a promotion letter) so that they compare
// with the canonical moves of vesper's fold; "headers" are getHeaders().
//
// Usage: node pgn.js < pgns.jsonl

const readline = require('readline');
const { Chess } = require('chess.js');
const version = require('chess.js/package.json').version;
if (version !== '1.4.0') {
  process.stderr.write(`pgn.js: chess.js ${version} installed, 1.4.0 required: run npm ci\n`);
  process.exit(2);
}

function load(name, pgn) {
  const c = new Chess();
  try {
    c.loadPgn(pgn);
  } catch (e) {
    return { name, ok: false, error: String(e && e.message ? e.message : e) };
  }
  const hist = c.history({ verbose: true });
  return {
    name,
    ok: true,
    headers: c.getHeaders(),
    moves: hist.map((m) => m.from + m.to + (m.promotion || '')),
    san: hist.map((m) => m.san),
    fen: c.fen(),
  };
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (line.trim() === '') return;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    process.stdout.write(JSON.stringify({ name: null, ok: false, error: 'bad input line: ' + e.message }) + '\n');
    return;
  }
  process.stdout.write(JSON.stringify(load(req.name, String(req.pgn))) + '\n');
});
