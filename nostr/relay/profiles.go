package relay

import (
	"context"
	"errors"
	"slices"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// WatchAuthors adds pubkeys (64 lowercase hex; others are ignored) whose
// kind-0 profiles the client watches. New authors' profiles are fetched at
// once on every connected relay.
func (c *Client) WatchAuthors(pubkeys ...string) {
	c.mu.Lock()
	added := false
	for _, pk := range pubkeys {
		if _, ok := c.authors[pk]; !ok && nostr.IsLowerHex(pk, 64) {
			c.authors[pk] = struct{}{}
			added = true
		}
	}
	if added {
		for _, ch := range c.notify {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	c.mu.Unlock()
}

func (c *Client) watched() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.authors))
	for pk := range c.authors {
		out = append(out, pk)
	}
	slices.Sort(out)
	return out
}

// fetchProfiles asks for the profiles of authors in batches of
// Config.ProfileBatch (fewer if the relay's max_message_length says so),
// one query at a time, each bounded to the pages its authors' events
// need (a relay holds one profile, and one relay list, per author).
func (c *Client) fetchProfiles(ctx context.Context, cn *wire.Conn, p *wire.Pager, lim limits.REQ, authors []string, deliver func(*gn.Event)) error {
	for chunk := range slices.Chunk(authors, min(c.cfg.ProfileBatch, lim.AuthorsPerFilter())) {
		kinds := c.profileKinds()
		// A relay holds one event per author and kind: enough pages for
		// that many at the relay's page size, and a few more.
		pages := 4 + len(chunk)*len(kinds)/max(1, p.Limit)
		pp := &wire.Pager{Conn: cn, Key: p.Key, Limit: p.Limit, CapKnown: p.CapKnown, Timeout: p.Timeout, Budget: &pages}
		f := gn.Filter{Kinds: kinds, Authors: chunk}
		if _, err := pp.Run(ctx, f, 0, deliver); err != nil && !errors.Is(err, wire.ErrBudget) {
			return err
		}
	}
	return nil
}

// profileKinds are the replaceable kinds read for watched authors.
func (c *Client) profileKinds() []int {
	if c.cfg.RelayLists {
		return []int{nostr.KindProfile, nostr.KindRelayList}
	}
	return []int{nostr.KindProfile}
}

// profileSubs are the live profile subscriptions of one connection, split
// within the relay's limits (NIP-11 max_message_length, max_filters,
// max_subscriptions): one REQ listing every watched author breaks them
// past a few thousand authors, and the relay then drops the connection
// for good. Authors beyond what the limits allow are not subscribed to live;
// their profiles are still fetched on every connect.
type profileSubs struct {
	cn      *wire.Conn
	lim     limits.REQ
	kinds   []int
	max     int // subscriptions the connection has left for them
	deliver func(*gn.Event)
	subs    []*wire.Sub
	merged  chan string // CLOSED reasons of any of subs
}

func (ps *profileSubs) closed() chan string {
	if ps.merged == nil {
		ps.merged = make(chan string, 1)
	}
	return ps.merged
}

// open subscribes to authors' profiles, replacing any subscriptions open.
func (ps *profileSubs) open(authors []string) error {
	for _, s := range ps.subs {
		ps.cn.Unsubscribe(s)
	}
	ps.subs = nil
	reqs, rest := limits.ProfileREQs(ps.kinds, authors, ps.lim, ps.max)
	if len(rest) > 0 {
		ps.cn.Log.Warn("relay: too many watched authors to subscribe to live; their profiles are fetched on connect",
			"relay", ps.cn.URL, "authors", len(authors), "not_live", len(rest))
	}
	return ps.subscribe(reqs)
}

// add subscribes to fresh authors too: in new subscriptions while the relay's
// limit allows, else by repacking all of them.
func (ps *profileSubs) add(fresh, all []string) error {
	reqs, rest := limits.ProfileREQs(ps.kinds, fresh, ps.lim, ps.max-len(ps.subs))
	if len(rest) > 0 {
		return ps.open(all)
	}
	return ps.subscribe(reqs)
}

func (ps *profileSubs) subscribe(reqs [][]gn.Filter) error {
	ch := ps.closed()
	for _, fs := range reqs {
		s, err := ps.cn.Subscribe(fs, ps.deliver)
		if err != nil {
			return err
		}
		ps.subs = append(ps.subs, s)
		go func() {
			select {
			case r := <-s.Closed():
				select {
				case ch <- r:
				default:
				}
			case <-ps.cn.Ctx.Done():
			}
		}()
	}
	return nil
}

func newAuthors(old, now []string) []string {
	var fresh []string
	for _, pk := range now {
		if _, found := slices.BinarySearch(old, pk); !found {
			fresh = append(fresh, pk)
		}
	}
	return fresh
}
