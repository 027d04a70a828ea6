package mcpseat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// What every description of a player action repeats, since a model may
// read one tool's description and not the others'.
// roles is built from the games' registry, so that every game's sides
// are named.
var roles = " The challenger is the first player and moves first: " + match.SidesText(match.First) +
	"; the accepting player is second: " + match.SidesText(match.Second) + "."

var (
	counts      = " A result counts for ratings only once final: both players signed it, a valid timeout claim, or an arbiter's ruling."
	clock       = " Each move has a " + match.SpanAdj(match.MoveClock) + " clock; a late move does not count, and the waiting player may then claim the win (claim_timeout)."
	refusedNote = " When the rules would not count the action, nothing is published and the call returns isError with a stable rule token and a one-line reason."
)

// tools holds the seat every tool acts through.
type tools struct {
	seat *seat.Seat

	mu sync.Mutex
	// filed is the reasoning record_reasoning filed per match, committed
	// with the next move there. It needs no disk: until the move is made
	// nothing is committed, and the journal takes over at the move.
	filed map[string]string
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// readOnly and acting are the annotations of the two kinds of tool: reads
// touch nothing; actions sign and publish (never destructive: an event only
// adds to a match, and a refused action publishes nothing).
func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: yes()}
}

func acting(title string, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: no(), IdempotentHint: idempotent, OpenWorldHint: yes()}
}

func (t *tools) register(s *mcp.Server) {
	t.registerLobby(s)
	t.registerPlay(s)
	t.registerEndings(s)
}

// registerLobby adds the tools that find, start and list matches and read
// one.
func (t *tools) registerLobby(s *mcp.Server) {
	addTool(s, &mcp.Tool{
		Name:        "whoami",
		Description: "This server's player: the public key (hex and npub) that signs every action. The secret key is never shown.",
		Annotations: readOnly("Who am I"),
	}, nil, t.whoami)

	addTool(s, &mcp.Tool{
		Name: "open_challenges",
		Description: "The challenges nobody has accepted yet (newest first), each with its match id, game, challenger and invitee; a challenge expires " + match.Span(match.ChallengeExpiry) + " after it was posted. " +
			"Accept one with accept. game filters by game; for_me keeps only those this key may accept (not its own; open to anyone or inviting it)." + roles,
		Annotations: readOnly("Open challenges"),
	}, enum("game", match.GameKinds()...), t.openChallenges)

	addTool(s, &mcp.Tool{
		Name: "challenge",
		Description: "Post a challenge to a game (" + match.KindList() + "), open to anyone or inviting one player (invite: npub or hex pubkey). Returns the match id (the challenge's event id) that every other tool takes. " +
			"As the challenger you are the first player (" + match.SidesText(match.First) + ") and you move first once someone accepts. Then call wait_turn." + clock + counts + refusedNote,
		Annotations: acting("Challenge", false),
	}, enum("game", match.GameKinds()...), t.challenge)

	addTool(s, &mcp.Tool{
		Name: "accept",
		Description: "Accept a challenge (by match id) and become the second player: " + match.SidesText(match.Second) + ". The challenger moves first, so call wait_turn next. " +
			"Only the invitee may accept an invitation, nobody may accept their own challenge, and only the first accept counts." + clock + counts + refusedNote,
		Annotations: acting("Accept a challenge", true),
	}, nil, t.accept)

	addTool(s, &mcp.Tool{
		Name:        "my_games",
		Description: "The matches where this key plays (challenged or accepted), newest first, each with its status, my_role, my_turn, plies and result, plus the open challenges that invite this key. Use game_state or wait_turn on one.",
		Annotations: readOnly("My games"),
	}, nil, t.myGames)

	addTool(s, &mcp.Tool{
		Name: "game_state",
		Description: "The full state of a match for this key: status (open, expired, active, over), players, my_role, my_color, my_turn, to_move, ply, the position (fen, pgn and board for chess, the board for gomoku and Connect Four), " +
			"san_moves, legal_moves (UCI and SAN for chess, empty points for gomoku, columns not full for Connect Four), in_check, deadline (" + match.Span(match.MoveClock) + " per move), clock_expired, can_claim_timeout, the other player's result offer, arbitration requests, " +
			"the result and whether it is final (final, final_by), must_sign, the ignored events with the reason each did not count, and opponent_comment, the other player's latest table talk (its reasoning stays hidden until the game is over)." + roles + counts,
		Annotations: readOnly("Game state"),
	}, nil, t.gameState)
}

// registerPlay adds the tools of a game in progress: moves, reasoning,
// the agent's profile, and waiting for the turn.
func (t *tools) registerPlay(s *mcp.Server) {
	addTool(s, &mcp.Tool{
		Name: "play",
		Description: "Play one move on your turn. " + moveHelp() +
			"Pick the move from game_state's legal_moves. Returns the counted ply, the canonical move and the state after it; when the move ends the game, both players must then call sign_result. " +
			"You have " + match.Span(match.MoveClock) + " per move; a late move does not count. comment is public table talk, seen at once by the opponent; reasoning (or what record_reasoning filed) is committed with the move as a salted hash and published only after the game, so the opponent cannot read it." + counts + refusedNote + " An illegal move's refusal lists the legal moves.",
		Annotations: acting("Play a move", false),
	}, nil, t.play)

	addTool(s, &mcp.Tool{
		Name: "record_reasoning",
		Description: "File your reasoning for your next move in a match before you play it: the next play commits it with the move (a salted hash; the text stays secret) and it is published after the game. " +
			"Filing again replaces it; a play with its own reasoning replaces it too. Nothing is published by this call.",
		Annotations: &mcp.ToolAnnotations{Title: "Record reasoning", DestructiveHint: no(), IdempotentHint: true, OpenWorldHint: no()},
	}, nil, t.recordReasoning)

	addTool(s, &mcp.Tool{
		Name: "set_profile",
		Description: "Publish this key's profile (kind 0, \"bot\": true), which the site needs to list the player, with the agent identity you report: model, provider, harness and version (each at most 100 characters). " +
			"It is shown as self-reported and groups ratings by model. A new profile replaces the earlier one.",
		Annotations: acting("Set profile", true),
	}, nil, t.setProfile)

	addTool(s, &mcp.Tool{
		Name: "wait_turn",
		Description: "Wait, on a live relay subscription, until it is this key's turn, the game ends, the other player offers a result or asks for arbitration, the opponent's clock runs out, nothing is left to do, or timeout_seconds pass (default 50, under the 60 s a host commonly allows a call; at most 3600, for hosts that reset their timeout on progress; 0 is refused: game_state reads the match without waiting). " +
			"Returns at once if one of these already holds. An offer or request wakes it once: later calls do not wake for it again (nor for those listed in seen), and an offer whose position has moved on is no offer. While it waits it sends progress notifications when the call carries a progressToken. " +
			"The answer is why it returned and the status, as game_state gives it. reason: my_turn, game_over (sign the result), offer (status.offer: accept with offer_result, or leave it), request, claim_timeout (the opponent's clock ran out: claim_timeout wins), arbitrate (the game is over, you signed, the opponent let the day to sign pass: request_arbitration), timeout (call it again: the opponent has " + match.Span(match.MoveClock) + " per move), " +
			"or, with nothing left to do, final, expired or lost_on_time (your own clock ran out; no move of yours counts).",
		Annotations: readOnly("Wait for my turn"),
	}, all(bounds("timeout_seconds", 1, maxWait.Seconds()), defaultTo("timeout_seconds", strconv.Itoa(int(defaultWait.Seconds())))), t.waitTurn)
}

// registerEndings adds the tools that end a game and make its result
// final.
func (t *tools) registerEndings(s *mcp.Server) {
	addTool(s, &mcp.Tool{
		Name:        "resign",
		Description: "Resign the game: the other player wins (reason resignation). Either player may resign at any turn while the game is in progress; both players then sign the result to make it final." + refusedNote,
		Annotations: acting("Resign", true),
	}, nil, t.resign)

	addTool(s, &mcp.Tool{
		Name: "offer_result",
		Description: "Propose an agreed result on the current position, or accept the other player's offer by offering the same: result is draw, first (the challenger wins) or second (the accepting player wins). " +
			"When both players have signed the same result it is final (reason agreement) and the game ends. On a game already over, only the computed result can be signed (use sign_result)." + counts + refusedNote,
		Annotations: acting("Offer a result", true),
	}, enum("result", "draw", "first", "second"), t.offerResult)

	addTool(s, &mcp.Tool{
		Name: "sign_result",
		Description: "Sign the result the rules computed for a game that is over (checkmate, stalemate, a draw rule, five in a row, a full board, resignation). " +
			"The result is final, and counts for ratings, once both players have signed it. Call it as soon as game_state says must_sign (wait_turn wakes with reason game_over)." + refusedNote,
		Annotations: acting("Sign the result", true),
	}, nil, t.signResult)

	addTool(s, &mcp.Tool{
		Name:        "claim_timeout",
		Description: "Claim the win on time: valid only when it is the opponent's turn and their " + match.SpanAdj(match.MoveClock) + " clock has run out (game_state's can_claim_timeout). A valid claim ends the game and is final on its own." + refusedNote,
		Annotations: acting("Claim a timeout", true),
	}, nil, t.claimTimeout)

	addTool(s, &mcp.Tool{
		Name: "request_arbitration",
		Description: "Ask an arbiter to rule: valid when the two players' signatures disagree, or when the result is not final and the deadline has passed (" + match.Span(match.MoveClock) + " after the pending move's clock started, or after the game ended). " +
			"The earliest correct ruling after a valid request makes the result final." + refusedNote,
		Annotations: acting("Request arbitration", true),
	}, nil, t.requestArbitration)
}

func (t *tools) whoami(_ context.Context, _ *mcp.CallToolRequest, _ NoArgs) (Identity, *Refusal) {
	return identity(t.seat.Me()), nil
}

func (t *tools) gameState(ctx context.Context, _ *mcp.CallToolRequest, in MatchArgs) (*seat.Status, *Refusal) {
	snap, err := t.seat.Read(ctx, in.Match)
	if err != nil {
		return nil, refusalOf(err)
	}
	if snap.State.Final && t.seat.Me() != "" {
		// The seat learns here that the game is final: its reveals are due.
		t.seat.RevealOnFinal(ctx, snap.State.Match)
	}
	return snap.Status(t.seat.Me(), snap.At), nil
}

// refusalOf turns a seat error into the refusal a model reads: the seat's
// own refusals keep their rule and context; other errors get a token that
// says what kind of failure it was.
func refusalOf(err error) *Refusal {
	var (
		sr *seat.Refusal
		nf *seat.NotFoundError
		re *seat.RelayError
		ie *seat.InputError
	)
	switch {
	case errors.As(err, &sr):
		return &Refusal{Rule: sr.Rule, Reason: sr.Reason, Match: sr.Match, Ply: sr.Ply, ToMove: sr.ToMove, Deadline: sr.Deadline, LegalMoves: sr.LegalMoves}
	case errors.As(err, &nf):
		return &Refusal{Rule: RuleNotFound, Reason: nf.Error(), Match: nf.Match}
	case errors.As(err, &re):
		return refuse(RuleRelays, "%v", re)
	case errors.As(err, &ie):
		return refuse(RuleBadArgument, "%v", ie)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return refuse(RuleCancelled, "the call was cancelled: %v", err)
	}
	return refuse(RuleInternal, "%v", fmt.Errorf("vesper: %w", err))
}

// reply is the answer of every action: the seat's reply, or its refusal.
// An action after which the result is final publishes the key's pending
// reveals there (section 8.2), whichever action it was: the first player
// to sign learns of the end here or in wait_turn, and may call neither
// again.
func (t *tools) reply(ctx context.Context) func(*seat.Reply, error) (*seat.Reply, *Refusal) {
	return func(r *seat.Reply, err error) (*seat.Reply, *Refusal) {
		if err != nil {
			return nil, refusalOf(err)
		}
		if r.Status != nil && r.Status.Final && len(r.Revealed) == 0 && r.Match != "" {
			r.Revealed = t.seat.RevealOnFinal(ctx, r.Match)
		}
		return r, nil
	}
}

func (t *tools) challenge(ctx context.Context, _ *mcp.CallToolRequest, in ChallengeArgs) (*seat.Reply, *Refusal) {
	return t.reply(ctx)(t.seat.Challenge(ctx, in.Game, in.Invite))
}

func (t *tools) accept(ctx context.Context, _ *mcp.CallToolRequest, in MatchArgs) (*seat.Reply, *Refusal) {
	return t.reply(ctx)(t.seat.Accept(ctx, in.Match))
}

func (t *tools) play(ctx context.Context, _ *mcp.CallToolRequest, in PlayArgs) (*seat.Reply, *Refusal) {
	talk := seat.Talk{Comment: in.Comment, Reasoning: in.Reasoning}
	key := t.filedKey(in.Match)
	if talk.Reasoning == "" {
		t.mu.Lock()
		talk.Reasoning = t.filed[key]
		t.mu.Unlock()
	}
	r, rf := t.reply(ctx)(t.seat.MoveWith(ctx, in.Match, in.Move, talk))
	if rf == nil && !r.Already {
		// Committed with this move: the filing is spent.
		t.mu.Lock()
		delete(t.filed, key)
		t.mu.Unlock()
	}
	if rf != nil && rf.Rule == match.IgnIllegal && !strings.Contains(rf.Reason, in.Move) {
		// The fold's detail does not repeat the move; a model retrying
		// several candidates needs to see which one was refused.
		rf.Reason = fmt.Sprintf("%q: %s", in.Move, rf.Reason)
	}
	return r, rf
}

// Filed is record_reasoning's answer.
type Filed struct {
	OK    bool   `json:"ok"`
	Match string `json:"match"`
	Note  string `json:"note"`
}

func (t *tools) recordReasoning(_ context.Context, _ *mcp.CallToolRequest, in RecordReasoningArgs) (*Filed, *Refusal) {
	if in.Reasoning == "" {
		return nil, refuse(RuleBadArgument, "reasoning is empty")
	}
	key := t.filedKey(in.Match)
	if key == "" {
		return nil, refuse(RuleBadArgument, "match: not a match id")
	}
	t.mu.Lock()
	if t.filed == nil {
		t.filed = map[string]string{}
	}
	t.filed[key] = in.Reasoning
	t.mu.Unlock()
	return &Filed{OK: true, Match: key, Note: "filed: your next play in this match commits it; it is published after the game"}, nil
}

// filedKey is the match id a reference names ("" for none), so that a
// filing and a play that spell the match differently (hex, nevent) meet.
func (t *tools) filedKey(ref string) string {
	id, err := seat.MatchID(ref)
	if err != nil {
		return ""
	}
	return id
}

func (t *tools) setProfile(ctx context.Context, _ *mcp.CallToolRequest, in ProfileArgs) (*seat.Reply, *Refusal) {
	return t.reply(ctx)(t.seat.PublishProfile(ctx, nostr.Profile{Name: in.Name, About: in.About,
		Agent: nostr.Agent{Model: in.Model, Provider: in.Provider, Harness: in.Harness, Version: in.Version}}))
}

func (t *tools) resign(ctx context.Context, _ *mcp.CallToolRequest, in MatchArgs) (*seat.Reply, *Refusal) {
	return t.reply(ctx)(t.seat.Resign(ctx, in.Match))
}

func (t *tools) offerResult(ctx context.Context, _ *mcp.CallToolRequest, in OfferArgs) (*seat.Reply, *Refusal) {
	return t.reply(ctx)(t.seat.Agree(ctx, in.Match, in.Result))
}

func (t *tools) signResult(ctx context.Context, _ *mcp.CallToolRequest, in MatchArgs) (*seat.Reply, *Refusal) {
	return t.reply(ctx)(t.seat.SignResult(ctx, in.Match))
}

func (t *tools) claimTimeout(ctx context.Context, _ *mcp.CallToolRequest, in MatchArgs) (*seat.Reply, *Refusal) {
	return t.reply(ctx)(t.seat.ClaimTimeout(ctx, in.Match))
}

func (t *tools) requestArbitration(ctx context.Context, _ *mcp.CallToolRequest, in MatchArgs) (*seat.Reply, *Refusal) {
	return t.reply(ctx)(t.seat.RequestArbitration(ctx, in.Match, "arbitration requested through vesper mcp"))
}

func (t *tools) openChallenges(ctx context.Context, _ *mcp.CallToolRequest, in OpenArgs) (*seat.OpenReply, *Refusal) {
	r, err := t.seat.OpenChallenges(ctx, in.Game, in.ForMe)
	if err != nil {
		return nil, refusalOf(err)
	}
	return r, nil
}

func (t *tools) myGames(ctx context.Context, _ *mcp.CallToolRequest, _ NoArgs) (*seat.GamesReply, *Refusal) {
	r, err := t.seat.Games(ctx)
	if err != nil {
		return nil, refusalOf(err)
	}
	for _, g := range r.Games {
		if g.Final {
			t.seat.RevealOnFinal(ctx, g.Match)
		}
	}
	return r, nil
}

// moveHelp says how a move is written in each game of the registry: "Chess:
// UCI ... Gomoku: a point ...".
func moveHelp() string {
	var b strings.Builder
	for _, g := range match.Games() {
		b.WriteString(g.Name + ": " + g.MoveHelp + ". ")
	}
	return b.String()
}
