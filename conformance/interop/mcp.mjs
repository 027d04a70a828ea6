// mcp.mjs drives `vesper mcp` with the official MCP TypeScript SDK, as a
// host built on it does (Claude Desktop, Cursor, most agent frameworks):
// it starts each server from a host configuration file
// ({"mcpServers": {"vesper": {"command", "args", "env"}}}, the README's), lists
// the tools (the SDK checks every tool against the MCP schema and compiles
// each output schema; a tool it rejects fails the whole list), then plays two
// whole games between the two servers through callTool with the default
// request options (60 s, no progress), which validates every structured
// content against its tool's output schema.
//
//   node mcp.mjs FIRST.json SECOND.json
//
// It prints one JSON object on stdout: the final game_state of each game as
// both players see it. Anything unexpected throws, and node exits non-zero
// with the reason on stderr; the Go test (mcp_test.go) judges the rest.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const TOOLS = [
  'accept', 'challenge', 'claim_timeout', 'game_state', 'my_games', 'offer_result', 'open_challenges',
  'play', 'record_reasoning', 'request_arbitration', 'resign', 'set_profile', 'sign_result', 'wait_turn', 'whoami',
];

function fail(msg) {
  throw new Error(msg);
}

// connect starts one server as a host does: its command and args from the
// configuration, the SDK's default environment plus the configuration's env.
async function connect(name, configFile) {
  const server = JSON.parse(readFileSync(configFile, 'utf8')).mcpServers?.vesper;
  if (!server) fail(`${configFile}: no mcpServers.vesper`);
  const transport = new StdioClientTransport({ command: server.command, args: server.args, env: server.env });
  const client = new Client({ name: `interop-${name}`, version: '1.0.0' });
  await client.connect(transport);

  const { tools } = await client.listTools();
  const names = tools.map(t => t.name).sort();
  if (JSON.stringify(names) !== JSON.stringify(TOOLS)) fail(`${name}: tools/list gave ${names}`);
  for (const t of tools) {
    if (t.outputSchema?.type !== 'object') fail(`${name}: ${t.name} has no object output schema`);
  }
  const instructions = client.getInstructions() ?? '';
  if (!instructions.includes('wait_turn')) fail(`${name}: instructions ${JSON.stringify(instructions)}`);
  return { name, client };
}

// call is a tool call with the default request options; a refusal (isError)
// is an error here unless refusalOK.
async function call(p, tool, args, refusalOK = false) {
  const res = await p.client.callTool({ name: tool, arguments: args });
  if (res.isError && !refusalOK) fail(`${p.name}: ${tool}(${JSON.stringify(args)}) refused: ${res.content?.[0]?.text}`);
  if (!res.structuredContent) fail(`${p.name}: ${tool}: no structured content`);
  return res;
}

async function answer(p, tool, args) {
  return (await call(p, tool, args)).structuredContent;
}

// loop is one player's whole game: wait_turn (no timeout_seconds: the
// server's default must fit in the host's 60 s), then on "my_turn" the next
// scripted move, which must be among the status's legal_moves; on
// "game_over" sign_result; until "final".
async function loop(p, match, moves, illegal) {
  for (let waits = 0; waits < 60; waits++) {
    const woke = await answer(p, 'wait_turn', { match });
    const st = woke.status;
    switch (woke.reason) {
      case 'my_turn': {
        if (illegal) {
          // A refused move must reach the model as a refusal it can read,
          // not as a schema error of the SDK.
          const res = await call(p, 'play', { match, move: illegal }, true);
          const rf = res.structuredContent;
          if (!res.isError || rf.rule !== 'illegal_move' || !(rf.legal_moves?.length > 0)) {
            fail(`${p.name}: the illegal move ${illegal} answered ${JSON.stringify(res)}`);
          }
          illegal = undefined;
        }
        const mv = moves.shift() ?? fail(`${p.name}: my turn at ply ${st.ply} with no move left`);
        if (!st.legal_moves.some(l => l.uci === mv || l.point === mv)) fail(`${p.name}: ${mv} is not among ${JSON.stringify(st.legal_moves)}`);
        const rep = await answer(p, 'play', { match, move: mv });
        if (rep.ply !== st.ply || rep.move !== mv) fail(`${p.name}: play ${mv} answered ${JSON.stringify(rep)}`);
        break;
      }
      case 'game_over':
        if (!st.must_sign) fail(`${p.name}: woke for game_over without must_sign`);
        await answer(p, 'sign_result', { match });
        break;
      case 'final':
        return answer(p, 'game_state', { match });
      case 'timeout':
        break;
      default:
        fail(`${p.name}: wait_turn woke for ${woke.reason}`);
    }
  }
  fail(`${p.name}: too many waits`);
}

async function game(challenger, other, gameName, invite, moves1, moves2, illegal2) {
  const ch = await answer(challenger, 'challenge', invite ? { game: gameName, invite } : { game: gameName });
  const match = ch.match;

  if (gameName === 'chess') {
    // A host that resets its timeout on progress asks for it: the server
    // must send progress for the request's token while it waits.
    let beats = 0;
    const res = await challenger.client.callTool({ name: 'wait_turn', arguments: { match, timeout_seconds: 6 } }, undefined, {
      onprogress: () => { beats++; },
      resetTimeoutOnProgress: true,
    });
    if (res.isError || res.structuredContent.reason !== 'timeout') fail(`unaccepted challenge: wait_turn answered ${JSON.stringify(res.structuredContent)}`);
    if (beats < 2) fail(`wait_turn sent ${beats} progress notification(s) in 6 s`);
  }

  const open = await answer(other, 'open_challenges', { game: gameName, for_me: true });
  if (!open.open.some(c => c.match === match)) fail(`${other.name}: open_challenges misses ${match}`);
  await answer(other, 'accept', { match });
  const [a, b] = await Promise.all([loop(challenger, match, moves1), loop(other, match, moves2, illegal2)]);
  return { match, game: gameName, first: a, second: b };
}

const [firstConfig, secondConfig] = process.argv.slice(2);
if (!secondConfig) fail('usage: node mcp.mjs FIRST.json SECOND.json');
const alice = await connect('alice', firstConfig);
const bob = await connect('bob', secondConfig);
try {
  const bobKey = await answer(bob, 'whoami', {});
  const games = [];
  // Fool's mate: Black mates at ply 4. Bob first tries a move that is not
  // legal (a pawn cannot jump three squares).
  games.push(await game(alice, bob, 'chess', bobKey.npub, ['f2f3', 'g2g4'], ['e7e5', 'd8h4'], 'e7e4'));
  // Gomoku, open to anyone: X (Bob) makes five in a row at ply 9.
  games.push(await game(bob, alice, 'gomoku', '', ['h8', 'h9', 'h10', 'h11', 'h12'], ['a1', 'a2', 'a3', 'a4']));
  process.stdout.write(JSON.stringify({ games }) + '\n');
} finally {
  await alice.client.close();
  await bob.client.close();
}
