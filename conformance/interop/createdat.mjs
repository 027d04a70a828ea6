// How a verifier in JavaScript reads created_at near and past 2^53-1, with
// nostr-tools' own verifyEvent: the evidence for section 1's bound
// (nostr.MaxCreatedAt, issue 30 item 11).
//
// Input on stdin, JSON: {"raw": [event JSON texts, as a match.json holds
// them], "sign": {"key": <hex secret key>, "at": [created_at numbers, as
// decimal strings, for nostr-tools to sign]}, "clock": [[c, t], ...] (safe
// integers)}.
// Output on stdout, JSON: {"checked": [for each raw text, then each event
// signed here: {"verified": verifyEvent(JSON.parse(raw)),
// "safe": Number.isSafeInteger(created_at), "exact": the number JSON.parse
// gave, printed exactly with BigInt}], "signed": [JSON texts of the events
// nostr-tools signed], "clock": [{"ran_out": t > c + 86400, "expired":
// t > c + 604800}]}: the time rules of section 2 computed the way a
// JavaScript verifier naturally writes them, in doubles.
import { finalizeEvent, verifyEvent } from 'nostr-tools/pure'

const input = JSON.parse(await readStdin())

const signed = (input.sign.at ?? []).map((at) => {
  const ev = finalizeEvent({ kind: 4422, created_at: Number(at), tags: [['g', 'x'.repeat(64)], ['ply', '1']], content: 'h8' },
    Uint8Array.from(Buffer.from(input.sign.key, 'hex')))
  return JSON.stringify(ev)
})

const checked = (input.raw ?? []).concat(signed).map((raw) => {
  const ev = JSON.parse(raw)
  let verified = false
  try { verified = verifyEvent(ev) } catch { verified = false }
  const exact = Number.isInteger(ev.created_at) ? BigInt(ev.created_at).toString() : String(ev.created_at)
  return { verified, safe: Number.isSafeInteger(ev.created_at), exact }
})

const clock = (input.clock ?? []).map(([c, t]) => ({ ran_out: t > c + 86400, expired: t > c + 604800 }))

process.stdout.write(JSON.stringify({ checked, signed, clock }))

async function readStdin () {
  const chunks = []
  for await (const c of process.stdin) chunks.push(c)
  return Buffer.concat(chunks).toString('utf8')
}
