package seat

import (
	"context"
	"sort"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// Game is one line of Games: a match the key plays, or an invitation.
type Game struct {
	Match    string       `json:"match"`
	Game     string       `json:"game"`
	Status   match.Status `json:"status"`
	MyRole   string       `json:"my_role"`
	MyColor  string       `json:"my_color"`
	Opponent *string      `json:"opponent"`
	MyTurn   bool         `json:"my_turn"`
	MustSign bool         `json:"must_sign"`
	Plies    int          `json:"plies"`
	Result   *string      `json:"result"`
	Final    bool         `json:"final"`
	Deadline *Time        `json:"deadline"`
	// CreatedAt is the challenge's created_at.
	CreatedAt int64 `json:"created_at"`
}

// GamesReply lists the key's matches (newest first) and the open
// challenges that invite it.
type GamesReply struct {
	Games       []Game      `json:"games"`
	Invitations []Challenge `json:"invitations"`
	Relays      RelayReport `json:"relays"`
}

// Challenge is an open challenge.
type Challenge struct {
	Match      string  `json:"match"`
	Game       string  `json:"game"`
	Challenger string  `json:"challenger"`
	Invitee    *string `json:"invitee"`
	CreatedAt  int64   `json:"created_at"`
	AgeSeconds int64   `json:"age_seconds"`
	Expires    *Time   `json:"expires"`
}

// OpenReply is the answer of OpenChallenges.
type OpenReply struct {
	Open   []Challenge `json:"open"`
	Relays RelayReport `json:"relays"`
}

// Games lists the matches on the relays where the seat's key plays: those
// it challenged, was invited to or accepted.
func (s *Seat) Games(ctx context.Context) (*GamesReply, error) {
	if err := s.needKey(); err != nil {
		return nil, err
	}
	me := s.Me()
	refs, err := s.fetch(ctx, []gn.Filter{
		{Kinds: []int{nostr.KindChallenge}, Authors: []string{me}},
		{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{"p": {me}}},
		{Kinds: []int{nostr.KindAccept}, Authors: []string{me}},
	}, "list games")
	if err != nil {
		return nil, err
	}
	list := myMatchIDs(refs.events)
	out := &GamesReply{Games: []Game{}, Invitations: []Challenge{}, Relays: RelayReport{Answered: refs.answered, Failed: refs.failed}}
	if len(list) == 0 {
		return out, nil
	}
	all, err := s.fetch(ctx, []gn.Filter{{IDs: list}, {Kinds: matchKinds(), Tags: gn.TagMap{nostr.MatchTag: list}}}, "list games")
	if err != nil {
		return nil, err
	}
	evs := make([]*nostr.Event, 0, len(all.events))
	seen := map[string]int64{}
	for _, r := range all.events {
		evs = append(evs, r.Event)
		seen[r.Event.ID] = all.at
	}
	now := s.now().Unix()
	for _, id := range list {
		st, err := match.Fold(id, evs, seen)
		if err != nil {
			continue
		}
		if st.Role(me) != "" {
			out.Games = append(out.Games, gameOf(&Snapshot{State: st, SeenAt: seen, At: now}, me, now))
		} else if st.Invitee == me && st.Status(now) == match.StatusOpen {
			out.Invitations = append(out.Invitations, challengeOf(st, now))
		}
	}
	sort.Slice(out.Games, func(i, j int) bool {
		if out.Games[i].CreatedAt != out.Games[j].CreatedAt {
			return out.Games[i].CreatedAt > out.Games[j].CreatedAt
		}
		return out.Games[i].Match < out.Games[j].Match
	})
	return out, nil
}

// myMatchIDs is the sorted ids of the matches the key's challenges,
// invitations and accepts refer to.
func myMatchIDs(refs []relay.Received) []string {
	ids := map[string]bool{}
	for _, r := range refs {
		if r.Event.Kind == nostr.KindChallenge {
			ids[r.Event.ID] = true
			continue
		}
		for _, g := range nostr.MatchRefs(r.Event) {
			ids[g] = true
		}
	}
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	sort.Strings(list)
	return list
}

// gameOf is the games-list entry of a match the key plays in.
func gameOf(snap *Snapshot, me string, now int64) Game {
	st := snap.State
	role := st.Role(me)
	stt := snap.Status(me, now)
	g := Game{Match: st.Match, Game: st.Kind, Status: stt.Status, MyRole: role, MyColor: stt.MyColor,
		MyTurn: stt.MyTurn, MustSign: stt.MustSign, Plies: st.Plies(), Result: stt.Result, Final: st.Final,
		Deadline: stt.Deadline, CreatedAt: st.CreatedAt}
	if other := st.Player(otherRole(role)); other != "" {
		g.Opponent = &other
	}
	return g
}

func otherRole(role string) string {
	if role == match.First {
		return match.Second
	}
	return match.First
}

func matchKinds() []int {
	return []int{nostr.KindAccept, nostr.KindMove, nostr.KindResult, nostr.KindRequest, nostr.KindRuling}
}

func challengeOf(st *match.State, now int64) Challenge {
	c := Challenge{Match: st.Match, Game: st.Kind, Challenger: st.First, CreatedAt: st.CreatedAt,
		AgeSeconds: now - st.CreatedAt, Expires: mkTime(st.Clock().Expires())}
	if st.Invitee != "" {
		inv := st.Invitee
		c.Invitee = &inv
	}
	return c
}

// OpenChallenges lists the challenges still open (unaccepted, unexpired),
// newest first. game filters by game ("" for both); forMe keeps those the
// seat's key may accept: not its own, and open to anyone or inviting it.
func (s *Seat) OpenChallenges(ctx context.Context, game string, forMe bool) (*OpenReply, error) {
	if _, err := match.LookupGame(game); game != "" && err != nil {
		return nil, inputf("game must be %s, not %q", match.KindList(), game)
	}
	if forMe {
		if err := s.needKey(); err != nil {
			return nil, err
		}
	}
	now := s.now().Unix()
	since := gn.Timestamp(now - match.ChallengeExpiry)
	chs, err := s.fetch(ctx, []gn.Filter{{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{"t": {nostr.GamesTopic}}, Since: &since}}, "list challenges")
	if err != nil {
		return nil, err
	}
	out := &OpenReply{Open: []Challenge{}, Relays: RelayReport{Answered: chs.answered, Failed: chs.failed}}
	var ids []string
	for _, r := range chs.events {
		ids = append(ids, r.Event.ID)
	}
	if len(ids) == 0 {
		return out, nil
	}
	accepts, err := s.fetch(ctx, []gn.Filter{{Kinds: []int{nostr.KindAccept}, Tags: gn.TagMap{nostr.MatchTag: ids}}}, "list challenges")
	if err != nil {
		return nil, err
	}
	evs := []*nostr.Event{}
	for _, r := range accepts.events {
		evs = append(evs, r.Event)
	}
	me := s.Me()
	for _, r := range chs.events {
		st, err := match.Fold(r.Event.ID, append([]*nostr.Event{r.Event}, evs...), nil)
		if err != nil || st.Status(now) != match.StatusOpen {
			continue
		}
		if game != "" && st.Kind != game {
			continue
		}
		if forMe && (st.First == me || st.Invitee != "" && st.Invitee != me) {
			continue
		}
		out.Open = append(out.Open, challengeOf(st, now))
	}
	sort.Slice(out.Open, func(i, j int) bool {
		if out.Open[i].CreatedAt != out.Open[j].CreatedAt {
			return out.Open[i].CreatedAt > out.Open[j].CreatedAt
		}
		return out.Open[i].Match < out.Open[j].Match
	})
	return out, nil
}

// Profile publishes the key's kind-0 profile with "bot": true (NIP-24),
// which the site needs before it lists a player.
func (s *Seat) Profile(ctx context.Context, name, about string) (*Reply, error) {
	return s.PublishProfile(ctx, nostr.Profile{Name: name, About: about})
}

// PublishProfile publishes p as the key's kind 0, with "bot": true and,
// when set, the agent identity of PROTOCOL.md section 8.4 (self-reported:
// sites show it as "says it is").
func (s *Seat) PublishProfile(ctx context.Context, p nostr.Profile) (*Reply, error) {
	if err := s.needKey(); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, inputf("a profile needs a name")
	}
	ev, err := nostr.NewProfile(p, s.now().Unix())
	if err != nil {
		return nil, inputf("%v", err)
	}
	if err := s.Key.Sign(ev); err != nil {
		return nil, err
	}
	accepted, failed, err := s.publish(ctx, ev)
	if err != nil {
		return nil, err
	}
	return &Reply{OK: true, Action: "profile", Event: ev.ID, Kind: ev.Kind, Accepted: accepted, Failed: failed}, nil
}
