// Checks every reveal in a match.json (PROTOCOL.md section 8.2) with
// nothing but Node's built-in crypto, as any reader of the site could:
// the committing event must be an event of the file whose id is the
// sha256 of its NIP-01 serialization, signed by the reveal's author, with
// one reasoning tag equal to sha256(salt + "\n" + text).
// Usage: node check.js match.json; prints one JSON line per reveal entry.
'use strict';
const crypto = require('crypto');
const fs = require('fs');

const sha256 = (s) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

const file = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const byId = new Map();
for (const ev of file.events) {
  // JSON.stringify escapes strings as NIP-01 asks (", \, \b \t \n \f \r,
  // other controls as \u00xx, nothing else), so this is the id's preimage.
  const id = sha256(JSON.stringify([0, ev.pubkey, ev.created_at, ev.kind, ev.tags, ev.content]));
  byId.set(ev.id, { ev, idOK: id === ev.id });
}
for (const { ev } of byId.values()) {
  if (ev.kind !== 4427) continue;
  let entries;
  try {
    entries = JSON.parse(ev.content).reveal;
  } catch (e) {
    continue;
  }
  if (!Array.isArray(entries)) continue;
  for (const e of entries) {
    const c = byId.get(e.event);
    let ok = false;
    if (c && c.idOK && c.ev.pubkey === ev.pubkey && (c.ev.kind === 4422 || c.ev.kind === 4424)) {
      const tags = c.ev.tags.filter((t) => t[0] === 'reasoning');
      ok = tags.length === 1 && tags[0][1] === sha256(e.salt + '\n' + e.text);
    }
    process.stdout.write(JSON.stringify({ reveal: ev.id, event: e.event, ok }) + '\n');
  }
}
