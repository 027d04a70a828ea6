// Package seat is an agent's place at a vesper match: everything a player
// needs, built once and used by both `vesper` CLI commands (status, wait,
// move, ...) and the MCP server (`vesper mcp`). Nothing here prints or
// exits; every answer is a Go value with JSON tags, the same object the CLI
// prints under --json.
//
// # A seat
//
//	s := &seat.Seat{Relays: urls, Key: key, Timeout: 10 * time.Second}
//
// Key may be zero for reading only (Read, OpenChallenges without forMe).
// Timeout bounds each relay's part of a read or a publication: a dead relay
// or one that never answers costs at most that, once, and the answers of
// the others are used (they are listed in Status.Relays). The secret key is
// never printed, logged nor put in an error.
//
// # Reading
//
// Read(ctx, match) fetches a match from every relay and folds it with this
// seat's receipt time as seen_at (PROTOCOL.md section 7), so it counts what
// a verifier receiving the events now counts. Snapshot.Status(me, now)
// gives the Status object: the section 6 summary (embedded, same keys)
// plus ply, to_move, my_role/my_color/my_turn, fen, pgn, san_moves,
// legal_moves (uci+san in chess, point in gomoku), in_check, deadline
// ({unix, rfc3339}), clock_expired, can_claim_timeout, must_sign,
// signatures, offer (the other player's pending signature), requests,
// last_used, relays {answered, failed} and now.
//
// Games(ctx) lists the key's matches with my_turn and the invitations
// addressed to it; OpenChallenges(ctx, game, forMe) the open challenges.
//
// # Acting
//
// Challenge, Accept, Move, Resign, Agree (offer or accept an agreed
// result: draw|first|second, white|black as aliases), SignResult (the
// computed result of a game over by rule), ClaimTimeout,
// RequestArbitration, Rule (as arbiter), Profile and RelayList return a *Reply: ok,
// already, the event, the relays that accepted it, a note on what happens
// next (the game ended and both must sign; final; held until the accept),
// and the Status after the action.
//
// Before signing, every action asks the fold: match.State.Try(event, now)
// applies the event to a copy of the state with the fold's own rules. If
// the fold would ignore it, nothing is published and the action returns a
// *Refusal whose Rule is the fold's reason token (wrong_player,
// illegal_move, late, claim_premature, sig_inconsistent, ...; see the Ign*
// constants of package match), or one of this package's Rule* tokens
// (promotion_piece, stamp_ahead, not_over, invalid_challenge). A Refusal carries
// to_move, ply, deadline and, for moves, legal_moves.
//
// An action takes the key's lock on the match (in the process, and an
// flock in LockDir across processes) before it reads the match, and holds
// it until it answers: two actions of one key in one match run one after
// the other, and the second answers from what the first did.
//
// A retried action that already took effect (the same move as this key's
// last counted ply, an accept by this key, the same signature) answers OK
// with Already set and publishes nothing.
//
// Events are stamped max(now, last used + 1) and never ahead of the clock:
// when the match's latest event is up to MaxAhead (5 s) in the future the
// seat waits for it, after the fold has said the event would count (a
// refusal costs no wait); beyond that it refuses with stamp_ahead. A
// refusal lists legal moves only when they are the key's own. Challenges
// carry a random nonce in their content, so each is a new match.
//
// # Relays beyond the seat's own (NIP-65, NIP-19)
//
// A match reference given as nevent1 has its relay hints asked too, for
// that read (Read, Wait and every action on the match), and every event an
// action signs in the match goes to them as well (the challenger reads
// there; an accept it never sees splits the match); an invitee given
// as nprofile1 has its hints asked for its relay list. An event that tags
// someone (an accept tags the challenger, an invitation the invitee) also
// goes to that person's read relays, a few at most (MaxInbox): those of
// their latest relay list (kind 10002) found on the seat's relays and the
// hints, or the hints when they have none. Relay-list relays on this
// machine or a private network are used only by a seat that has such a
// relay itself. Reply.Inbox lists them. RelayList publishes the key's own
// relay list. Status.Nevent (and a challenge's Reply.Nevent) is the match
// as nevent1 with hints of the relays that hold (or took) it, and a
// NotFoundError names the relays searched.
//
// # Errors
//
// *Refusal (rules), *NotFoundError (no valid match on the relays that
// answered), *RelayError (no relay answered or accepted), *InputError (bad
// argument), or a context error. The CLI maps them to exit statuses 3, 6,
// 4, 2.
//
// # Waiting
//
// Wait(ctx, match, WaitOptions{Timeout, Progress, Seen}) keeps one live
// subscription per relay (relay.Watch: reopened after a drop) and returns a
// *Woke{Reason, Status} as soon as the key can act, as the fold judges it
// (State.Check, never a rule of the seat's own): its move would count
// (my_turn), the game is over and the key must sign (game_over), the
// other player's offer on the current position (offer) or arbitration
// request (request) is pending and not in WaitOptions.Seen (even one that
// came before Wait started: an agent that only waits cannot miss it), or
// the other player's clock has run out and a claim would count
// (claim_timeout), or the game is over, the key signed, the other player's
// day to sign has passed and a request would count (arbitrate). It also returns when nothing is left to do (Terminal):
// the result is final (final), the challenge expired (expired), or the
// key's own clock ran out so no move of its counts (lost_on_time); and
// when the timeout passes (timeout, not an error). A timer wakes it when
// the clock alone changes the answer (a clock running out, a challenge
// expiring), and while the match's latest event is stamped more than
// MaxAhead ahead of this clock it waits until an answer can be stamped.
// An offer whose position the game has moved on from is no offer
// (Status.Offer is nil). Look answers the same question once, without
// waiting. Progress is called on every new event and every ProgressEvery.
//
// # Table talk, committed reasoning, identity (PROTOCOL.md section 8)
//
// MoveWith, SignResultWith and AgreeWith take a Talk: a comment (public at
// once), reasoning, attempts and usage. Reasoning is committed: the seat
// draws a salt for the event, signs sha256(salt "\n" text) in its
// reasoning tag, and appends salt and text to the reasoning journal
// (JournalDir, one 0600 JSON-lines file per match) and fsyncs it once the
// fold has agreed to the event and before it is published, so a crash can
// never leave a commitment whose text is lost. Reveal publishes the
// journal's pending entries of a match as kind 4427 events (refused while
// the game is live unless early); RevealDue does it when due (the result is
// final, or the game has been over for an hour), and a signature that makes
// the result final, and a wait or look that wakes final, do it on their
// own. Revealed entries are marked in the journal and never published
// twice. Reveals checks a match's reveals (package reveal). Status carries
// the opponent's latest comment, never reasoning. PublishProfile publishes
// the kind 0 with the agent identity.
package seat
