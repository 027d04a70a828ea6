// A NIP-77 client as other programs write it: nostr-tools' NegentropySync
// over its own Relay, reconciling a set of events it holds with a relay,
// then making both sides whole (it publishes what the relay lacks and
// fetches what it lacks) and reconciling once more.
//
// Input on stdin, JSON: {"url": "ws://...", "filter": {...}, "events":
// [signed events the client holds], "query_first": bool (send one REQ
// before reconciling, to spend a per-connection request budget)}.
// Output on stdout, JSON: {"have": [ids only the client had], "need": [ids
// only the relay had], "fetched": [ids fetched and verified], "published":
// [ids the relay accepted], "after": {"have": [...], "need": [...]}} or,
// when the relay refuses, {"error": {"label": ..., "reason": ...}} with
// the message NegentropySync ended on. Every message the relay sends the
// reconciliation is logged to stderr, so a hang shows what came instead.
import { nip77 } from 'nostr-tools'
import { verifyEvent } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import WebSocket from 'ws'

useWebSocketImplementation(WebSocket)

const input = JSON.parse(await readStdin())
const relay = await Relay.connect(input.url)

if (input.query_first) {
  await query(relay, input.filter)
}

const first = await reconcile(relay, input.filter, input.events)
if (first.error) {
  finish({ error: first.error })
} else {
  const byId = new Map(input.events.map((ev) => [ev.id, ev]))
  const published = []
  for (const id of first.have) {
    await relay.publish(byId.get(id))
    published.push(id)
  }
  const fetched = []
  if (first.need.length > 0) {
    // One filter per id: the relay caps each filter at its max_limit.
    for (const ev of await query(relay, ...first.need.map((id) => ({ ids: [id] })))) {
      if (!verifyEvent(ev)) throw new Error(`relay served an event that does not verify: ${ev.id}`)
      fetched.push(ev.id)
      byId.set(ev.id, ev)
    }
  }
  const after = await reconcile(relay, input.filter, [...byId.values()])
  finish({ have: first.have, need: first.need, fetched, published, after })
}

// reconcile runs one NegentropySync over events and reports the ids only
// the client has (onhave) and only the relay has (onneed), or the error
// message the sync ended on.
function reconcile(relay, filter, events) {
  const storage = new nip77.NegentropyStorageVector()
  for (const ev of events) storage.insert(ev.created_at, ev.id)
  storage.seal()
  const have = []
  const need = []
  let last = null
  return new Promise((resolve) => {
    const sync = new nip77.NegentropySync(relay, storage, filter, {
      onhave: (id) => have.push(id),
      onneed: (id) => need.push(id),
      onclose: (reason) => {
        // NegentropySync hands NEG-ERR's reason to nobody, so it is taken
        // from the last message seen below.
        if (last && last[0] !== 'NEG-MSG') {
          resolve({ error: { label: last[0], reason: last[2] ?? reason ?? null } })
        } else if (reason) {
          resolve({ error: { label: 'onclose', reason } })
        } else {
          resolve({ have, need })
        }
      },
    })
    const dispatch = sync.subscription.oncustom
    sync.subscription.oncustom = (data) => {
      process.stderr.write(`relay: ${JSON.stringify(data).slice(0, 200)}\n`)
      last = data
      dispatch(data)
    }
    sync.start()
  })
}

// query is a REQ that ends at EOSE; a CLOSED before it fails.
function query(relay, ...filters) {
  return new Promise((resolve, reject) => {
    const events = []
    let eose = false
    const sub = relay.subscribe(filters, {
      onevent: (ev) => events.push(ev),
      oneose: () => {
        eose = true
        resolve(events)
        sub.close()
      },
      onclose: (reason) => {
        if (!eose) reject(new Error(`subscription closed: ${reason}`))
      },
    })
  })
}

function finish(result) {
  process.stdout.write(JSON.stringify(result) + '\n')
  relay.close()
  process.exit(0)
}

async function readStdin() {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
}
