'use strict';
// The chess.js 1.4.0 baseline for BenchmarkReplaySAN and BenchmarkReplayUCI
// in vesper/match/chessjs: replays the same games, from SAN or from UCI
// strings, doing per move what the Go benchmark does: parse and apply
// (move), fen() and isGameOver(). Prints one JSON object.
//
// Usage: node bench.js [san|uci|both] [GAMES_FILE] [SECONDS]
//   GAMES_FILE defaults to ../../match/chessjs/testdata/replay_games.json

const fs = require('fs');
const os = require('os');
const path = require('path');
const { Chess } = require('chess.js');
const version = require('chess.js/package.json').version;

const which = process.argv[2] || 'both';
const file = process.argv[3] || path.join(__dirname, '..', '..', 'match', 'chessjs', 'testdata', 'replay_games.json');
const seconds = Number(process.argv[4] || 2);
const { games } = JSON.parse(fs.readFileSync(file, 'utf8'));

function replayAll(kind) {
  let moves = 0;
  for (const g of games) {
    const c = new Chess();
    for (const s of g[kind]) {
      c.move(s);
      c.fen();
      c.isGameOver();
      moves++;
    }
  }
  return moves;
}

function measure(kind) {
  replayAll(kind); // warm up the JIT: every pass replays all the games
  let moves = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    moves += replayAll(kind);
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  } while (elapsed < seconds);
  return { moves, seconds: elapsed, movesPerSec: moves / elapsed, nsPerMove: (elapsed * 1e9) / moves };
}

const out = { chessjs: version, node: process.version, cpus: os.cpus().length, cpu: (os.cpus()[0] || {}).model, games: games.length };
if (which === 'san' || which === 'both') out.san = measure('san');
if (which === 'uci' || which === 'both') out.uci = measure('uci');
process.stdout.write(JSON.stringify(out) + '\n');
