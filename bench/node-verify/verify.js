// The work of `vesper verify` done in Node: every event's id and signature
// checked with nostr-tools' verifyEvent, the match's events sorted in fold
// order, moves replayed with chess.js (parse, apply, FEN, game over) and the
// final hash computed. It is a lower bound on a full Node verifier (it skips
// most of the fold's bookkeeping), so the ratio it gives is conservative.
// Usage: node verify.js FILE...   (prints one line per file and the time)
import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { verifyEvent } from 'nostr-tools/pure'
import { Chess } from 'chess.js'

function tag(ev, name) {
  const t = ev.tags.filter((t) => t[0] === name)
  return t.length === 1 ? t[0][1] : undefined
}

function verifyFile(path) {
  const doc = JSON.parse(readFileSync(path, 'utf8'))
  const events = doc.events.filter((ev) => {
    try { return verifyEvent(ev) } catch { return false }
  })
  const id = doc.match
  const ch = events.find((e) => e.id === id && e.kind === 4420)
  if (!ch) return { match: id, error: 'no match' }
  const game = JSON.parse(ch.content).game
  const rest = events
    .filter((e) => e.kind >= 4421 && e.kind <= 4426 && tag(e, 'g') === id)
    .sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1))
  const chess = new Chess()
  let second = null, count = 0, over = false
  const moves = []
  for (const ev of rest) {
    if (ev.kind === 4421 && !second && ev.pubkey !== ch.pubkey) second = ev.pubkey
    if (ev.kind !== 4422 || !second || over) continue
    if (Number(tag(ev, 'ply')) !== count + 1) continue
    const mover = count % 2 === 0 ? ch.pubkey : second
    if (ev.pubkey !== mover) continue
    if (game === 'chess') {
      try {
        const m = chess.move(ev.content)
        moves.push(m.lan)
        count++
        over = chess.isGameOver()
      } catch { /* illegal: ignored */ }
    } else {
      moves.push(ev.content.toLowerCase())
      count++
    }
  }
  const input = game === 'chess' ? 'chess:' + chess.fen() : 'gomoku:' + moves.join(',')
  const hash = createHash('sha256').update(input).digest('hex')
  return { match: id, plies: count, final_hash: hash, over }
}

const files = process.argv.slice(2)
const t0 = performance.now()
let events = 0
for (const f of files) {
  const r = verifyFile(f)
  events += JSON.parse(readFileSync(f, 'utf8')).events.length
  process.stdout.write(JSON.stringify(r) + '\n')
}
const ms = performance.now() - t0
process.stderr.write(`node-verify: ${files.length} files, ${events} events in ${ms.toFixed(0)} ms (${(events / (ms / 1000)).toFixed(0)} events/s)\n`)
