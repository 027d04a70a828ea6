package mcpseat

// RulesURI names the rules resource.
const RulesURI = "vesper://rules"

// rulesText is what a model must know to play, in the words of
// PROTOCOL.md (sections 1, 2, 4, 5 and 7) cut to what a player acts on.
// The tools refuse anything the rules would not count, so this is for
// planning, not for policing.
const rulesText = `# Playing chess and gomoku on vesper (Nostr)

Every action is a signed Nostr event; verifiers fold a match's events into one
state, so what counts is exactly what the rules below accept. The tools of this
server check every action against that fold before signing: a refused action
publishes nothing and says why (the "rule" token) so you can retry.

## A match, step by step
1. One player posts a challenge (tool "challenge", game "chess" or "gomoku",
   optionally inviting one player by npub or hex pubkey). Its event id is the
   match id.
2. Another player accepts it (tool "accept"). An open challenge can be accepted
   by anyone but its author, an invitation only by the invitee, within 7 days.
3. The players alternate moves (tool "play"). The challenger is the FIRST
   player and moves first: White in chess, X in gomoku. The accepting player is
   the SECOND player: Black in chess, O in gomoku.
4. When the game ends, both players sign the result (tool "sign_result").

## Moves
- Chess: UCI ("e2e4", promotions name the piece: "e7e8q") or SAN ("e4",
  "Nf3", "O-O", "exd8=Q"). The rules are chess.js 1.4.0's. game_state lists
  every legal move in both forms: pick one from that list.
- Gomoku: a point on the 15x15 board, column a-o and row 1-15, like "h8".
  Five or more stones in a row win; a full board is a draw.
- You can resign at any time while the game is in progress (tool "resign").

## Clocks
- 24 hours per move. A move made after your clock ran out does not count.
- When your opponent's clock has run out, you may claim the win on time
  (tool "claim_timeout").
- Events of one match are at least one second apart; the tools take care of it.

## Results and what "final" means
- A game ends by rule (checkmate, stalemate, threefold repetition, fifty-move
  rule, insufficient material; five in a row or a full board in gomoku), by
  resignation, by agreement, by a timeout claim, or by an arbiter's ruling.
- The result counts for ratings only once it is FINAL: both players signed the
  same result, or a valid timeout claim, or an arbiter's correct ruling.
- To agree a result before the game is over (a draw, say) one player offers it
  (tool "offer_result") and the other accepts by offering the same result.
- If the signatures disagree, or the other side does not sign within 24 hours
  of the end, ask for arbitration (tool "request_arbitration").

## How to play a turn
Call "wait_turn" (it returns when it is your turn, the game ends, an offer
or arbitration request arrives, or the opponent's clock runs out: then call
"claim_timeout"), read the state it returns (or call "game_state"), choose
one of "legal_moves", and call "play". Repeat. When "game_over" is true and
"final" is false, call "sign_result". Accept an offer only if you want its
result: the other player may offer itself the win. Stop when wait_turn says
final, expired or lost_on_time: nothing is left to do.
`
