// The work of `vesper verify` done in Node: every event's id and signature
// checked with nostr-tools' verifyEvent, the match's events sorted in fold
// order, the moves replayed by the rules of the challenge's game (chess
// with chess.js: parse, apply, FEN, game over; gomoku and Connect Four,
// PROTOCOL.md sections 5 and 5.1, by the small boards below) and the final
// hash computed. It is a lower bound on a full Node verifier (it skips
// most of the fold's bookkeeping: results, clocks, rulings), so the ratio
// it gives is conservative. A game it does not know is refused by name,
// never replayed by another game's rules.
//
// Usage: node verify.js [--check] FILE...
// Prints one line per file and the time; --check compares each file's
// plies and final hash with the summary the file carries (a match.json
// the site published) and exits 1 when one differs.
import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { verifyEvent } from 'nostr-tools/pure'
import { Chess } from 'chess.js'

function tag(ev, name) {
  const t = ev.tags.filter((t) => t[0] === name)
  return t.length === 1 ? t[0][1] : undefined
}

// A position: play(move) gives the move's canonical form, or null when it
// is illegal; over() says the game ended by rule; hash() is the string
// final_hash is the sha256 of (PROTOCOL.md section 2).
function chess() {
  const c = new Chess()
  return {
    play(m) {
      try { return c.move(m).lan } catch { return null }
    },
    over: () => c.isGameOver(),
    hash: () => 'chess:' + c.fen(),
  }
}

// A board of cols x rows where a line of `win` stones of one player ends
// the game, and so does a full board; place(move, mover) gives the cell a
// move takes (null: illegal) and its canonical form.
function lineGame(name, cols, rows, win, place) {
  const cells = new Array(cols * rows).fill(0)
  const moves = []
  let ended = false
  const at = (c, r) => (c >= 0 && c < cols && r >= 0 && r < rows ? cells[c * rows + r] : 0)
  function line(c, r, who) {
    for (const [dc, dr] of [[1, 0], [0, 1], [1, 1], [1, -1]]) {
      let n = 1
      for (let k = 1; at(c + k * dc, r + k * dr) === who; k++) n++
      for (let k = 1; at(c - k * dc, r - k * dr) === who; k++) n++
      if (n >= win) return true
    }
    return false
  }
  return {
    play(m) {
      const who = (moves.length % 2) + 1
      const p = place(m, (c, r) => at(c, r))
      if (!p) return null
      cells[p.col * rows + p.row] = who
      moves.push(p.move)
      ended = line(p.col, p.row, who) || moves.length === cols * rows
      return p.move
    },
    over: () => ended,
    hash: () => name + ':' + moves.join(','),
  }
}

// Gomoku (section 5): 15x15, a point like h8, five in a row.
function gomoku() {
  return lineGame('gomoku', 15, 15, 5, (m, at) => {
    if (!/^[a-oA-O](1[0-5]|[1-9])$/.test(m)) return null
    const move = m.toLowerCase()
    const col = move.charCodeAt(0) - 97
    const row = Number(move.slice(1)) - 1
    return at(col, row) === 0 ? { col, row, move } : null
  })
}

// Connect Four (section 5.1): 7 columns of 6, a column a to g, the disc
// falls to the lowest empty cell; four in a row.
function connect4() {
  return lineGame('connect4', 7, 6, 4, (m, at) => {
    if (!/^[a-gA-G]$/.test(m)) return null
    const move = m.toLowerCase()
    const col = move.charCodeAt(0) - 97
    for (let row = 0; row < 6; row++) {
      if (at(col, row) === 0) return { col, row, move }
    }
    return null // a full column
  })
}

const games = { chess, gomoku, connect4 }

function verifyFile(doc) {
  const events = doc.events.filter((ev) => {
    try { return verifyEvent(ev) } catch { return false }
  })
  const id = doc.match
  const ch = events.find((e) => e.id === id && e.kind === 4420)
  if (!ch) return { match: id, error: 'no match: no challenge with that id' }
  let game
  try { game = JSON.parse(ch.content).game } catch { /* not JSON */ }
  if (!Object.hasOwn(games, game)) {
    return { match: id, error: `no match: unsupported game ${JSON.stringify(game)} (this baseline knows ${Object.keys(games).join(', ')})` }
  }
  const pos = games[game]()
  const rest = events
    .filter((e) => e.kind >= 4421 && e.kind <= 4426 && tag(e, 'g') === id)
    .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
  let second = null, count = 0, over = false, held = null
  const move = (ev) => {
    if (over || Number(tag(ev, 'ply')) !== count + 1) return
    if (ev.content === 'resign') {
      over = ev.pubkey === ch.pubkey || ev.pubkey === second
      return
    }
    if (ev.pubkey !== (count % 2 === 0 ? ch.pubkey : second)) return
    if (pos.play(ev.content) === null) return // illegal: ignored
    count++
    over = pos.over()
  }
  for (const ev of rest) {
    if (ev.kind === 4421 && !second && ev.pubkey !== ch.pubkey) {
      second = ev.pubkey
      if (held) move(held) // the challenger's ply-1 move, held until the accept
      continue
    }
    if (ev.kind !== 4422) continue
    if (second) {
      move(ev)
    } else if (!held && ev.pubkey === ch.pubkey && tag(ev, 'ply') === '1' && ev.content !== 'resign' &&
      ev.created_at >= ch.created_at && games[game]().play(ev.content) !== null) {
      held = ev
    }
  }
  const hash = createHash('sha256').update(pos.hash()).digest('hex')
  return { match: id, game, plies: count, final_hash: hash, over }
}

const check = process.argv[2] === '--check'
const files = process.argv.slice(check ? 3 : 2)
const t0 = performance.now()
let events = 0, differ = 0
for (const f of files) {
  const doc = JSON.parse(readFileSync(f, 'utf8'))
  const r = verifyFile(doc)
  events += doc.events.length
  process.stdout.write(JSON.stringify(r) + '\n')
  const want = doc.summary
  if (check && want && (Boolean(r.error) !== Boolean(want.error) ||
    (!r.error && (r.plies !== want.plies || r.final_hash !== want.final_hash)))) {
    differ++
    process.stderr.write(`node-verify: ${f}: plies ${r.plies} hash ${r.final_hash}, the summary says ${want.plies} ${want.final_hash}${want.error ? ' (' + want.error + ')' : ''}\n`)
  }
}
const ms = performance.now() - t0
process.stderr.write(`node-verify: ${files.length} files, ${events} events in ${ms.toFixed(0)} ms (${(events / (ms / 1000)).toFixed(0)} events/s)\n`)
if (differ > 0) {
  process.stderr.write(`node-verify: ${differ} files differ from their summaries\n`)
  process.exit(1)
}
