package sim

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"vesper/analysis"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// storeCheck is one comparison of the daemon's store with the relays.
type storeCheck struct {
	err         error
	problems    []string
	repeated    []string
	checked     int
	ref         map[string]*match.State
	statuses    map[string]int
	finalBy     map[string]int
	ignored     int
	daemonKinds map[string]int
	// daemonIgnored lists the daemon's own events that the fold ignores:
	// not a failed check (an ignored event changes nothing), but a duty
	// done on a state that later changed.
	daemonIgnored []string
	// What keeps the store from agreeing, counted for progressed: duties
	// unpublished, matches whose summary differs, events not stored; and
	// the events the relays hold.
	pending, mismatched, missing, onRelays int
}

// checkStore compares the store with the offline fold of every event the
// relays hold. seen_at is when the simulation first stored each event on
// a relay, a lower bound of the daemon's: the two only differ for events
// stamped in the future, which are ignored either way. fetch bounds each
// relay's reading.
func checkStore(ctx context.Context, data string, f *Fleet, daemon string, fetch time.Duration) *storeCheck {
	c := &storeCheck{statuses: map[string]int{}, finalBy: map[string]int{}, daemonKinds: map[string]int{}}
	st, err := store.OpenReadOnly(filepath.Join(data, "vesper.db"))
	if err != nil {
		c.err = err
		return c
	}
	defer st.Close()
	pending, err := st.OutboxPending(ctx)
	if err != nil {
		c.err = err
		return c
	}
	if c.pending = len(pending); c.pending > 0 {
		c.problems = append(c.problems, fmt.Sprintf("%d duties still unpublished in the daemon's outbox", len(pending)))
	}
	events, err := FetchAll(ctx, f.DirectURLs(), fetch)
	if err != nil {
		c.err = err
		return c
	}
	c.onRelays = len(events)
	c.ref = Reference(events, f.SeenAt())
	if c.err = c.compareSummaries(ctx, st, daemon); c.err != nil {
		return c
	}
	c.err = c.compareEvents(ctx, st, events, daemon)
	return c
}

// progressed tells whether the daemon got further than in the check
// before (nil: the first check): fewer differences from the fold, or more
// events of its own on the relays. A check that failed is no progress.
func (c *storeCheck) progressed(before *storeCheck) bool {
	if c.err != nil {
		return false
	}
	if before == nil || before.err != nil {
		return true
	}
	return c.differences() < before.differences() || c.onRelays > before.onRelays
}

// differences counts what keeps the store from agreeing with the relays.
func (c *storeCheck) differences() int {
	return c.pending + c.mismatched + c.missing
}

// compareSummaries compares each match's stored summary with the fold's,
// and gathers the season's figures.
func (c *storeCheck) compareSummaries(ctx context.Context, st *store.Store, daemon string) error {
	sums, err := st.Summaries(ctx)
	if err != nil {
		return err
	}
	stored := map[string]store.Summary{}
	for _, s := range sums {
		stored[s.Match] = s
	}
	var mismatched []string
	for id, s := range c.ref {
		c.checked++
		got, ok := stored[id]
		if !ok {
			mismatched = append(mismatched, fmt.Sprintf("match %s: no summary in the store", id))
			continue
		}
		// The stored summary's open/expired is as of when it was written.
		want := bytes.TrimSpace(match.MarshalLine(s.Summary(got.UpdatedAt)))
		if !bytes.Equal(bytes.TrimSpace(got.JSON), want) {
			mismatched = append(mismatched, fmt.Sprintf("match %s: %s\n  store: %s\n  fold:  %s",
				id, eventDiff(ctx, st, s), bytes.TrimSpace(got.JSON), want))
		}
		c.count(id, s, daemon)
	}
	for id := range stored {
		if _, ok := c.ref[id]; !ok {
			mismatched = append(mismatched, fmt.Sprintf("match %s: in the store but no valid match on the relays", id))
		}
	}
	sort.Strings(mismatched)
	if c.mismatched = len(mismatched); c.mismatched > 0 {
		c.problems = append(c.problems, fmt.Sprintf("%d of %d matches differ from the offline fold", len(mismatched), len(c.ref)))
		c.problems = append(c.problems, mismatched[:min(len(mismatched), 5)]...)
	}
	return nil
}

// count adds one match to the season's figures.
func (c *storeCheck) count(id string, s *match.State, daemon string) {
	sum := s.Summary(time.Now().Unix())
	c.statuses[string(sum.Status)]++
	c.finalBy[string(s.FinalBy)]++
	c.ignored += len(s.Ignored)
	for _, ig := range s.Ignored {
		for _, ev := range s.Events {
			if ev.ID == ig.ID && ev.PubKey == daemon {
				c.daemonIgnored = append(c.daemonIgnored, fmt.Sprintf("%s %s of match %s: %s", kindName(ev.Kind), ev.ID, id, ig.Reason()))
			}
		}
	}
}

// compareEvents checks that the store holds every event of the relays,
// and that the daemon published no duty twice.
func (c *storeCheck) compareEvents(ctx context.Context, st *store.Store, events []*nostr.Event, daemon string) error {
	var example string
	duties := map[string][]string{}
	for _, ev := range events {
		has, err := st.HasEvent(ctx, ev.ID)
		if err != nil {
			return err
		}
		if !has {
			c.missing++
			example = ev.ID
		}
		if ev.PubKey == daemon {
			c.daemonKinds[kindName(ev.Kind)]++
			k := dutyKey(ev)
			duties[k] = append(duties[k], ev.ID)
		}
	}
	if c.missing > 0 {
		c.problems = append(c.problems, fmt.Sprintf("%d events on the relays are not in the store (e.g. %s)", c.missing, example))
	}
	for k, ids := range duties {
		if len(ids) > 1 {
			c.repeated = append(c.repeated, fmt.Sprintf("%s: %s", k, strings.Join(ids, ", ")))
		}
	}
	sort.Strings(c.repeated)
	return nil
}

// eventDiff says which events of a match only the relays or only the
// store hold.
func eventDiff(ctx context.Context, st *store.Store, s *match.State) string {
	stored, err := st.MatchEvents(ctx, s.Match)
	if err != nil {
		return err.Error()
	}
	inStore := map[string]bool{}
	for _, e := range stored {
		inStore[e.Event.ID] = true
	}
	var onlyRelays, onlyStore []string
	for _, ev := range s.Events {
		if !inStore[ev.ID] {
			onlyRelays = append(onlyRelays, fmt.Sprintf("%s %s@%d", kindName(ev.Kind), ev.ID[:12], ev.CreatedAt))
		}
		delete(inStore, ev.ID)
	}
	for id := range inStore {
		onlyStore = append(onlyStore, id[:12])
	}
	return fmt.Sprintf("relays hold %d events, the store %d; only on the relays: %v; only in the store: %v",
		len(s.Events), len(stored), onlyRelays, onlyStore)
}

// dutyKey names what a daemon event does, so that two events with one
// key are one duty published twice (signed again after a restart): one
// accept per match, one move per ply, one result or ruling per content.
// Two rulings with different contents are two duties: the state changed
// in between (see storeCheck.daemonIgnored).
func dutyKey(ev *nostr.Event) string {
	g := strings.Join(nostr.MatchRefs(ev), ",")
	switch ev.Kind {
	case nostr.KindMove:
		ply, _ := nostr.Ply(ev)
		return fmt.Sprintf("%s %s ply %d", kindName(ev.Kind), g, ply)
	case nostr.KindResult, nostr.KindRuling:
		r, err := nostr.ParseResult(ev.Content)
		if err != nil {
			return fmt.Sprintf("%s %s %s", kindName(ev.Kind), g, ev.Content)
		}
		return fmt.Sprintf("%s %s %s/%d/%s", kindName(ev.Kind), g, r.Result, r.Plies, r.FinalHash)
	}
	return fmt.Sprintf("%s %s", kindName(ev.Kind), g)
}

func kindName(k int) string {
	switch k {
	case nostr.KindChallenge:
		return "challenge"
	case nostr.KindAccept:
		return "accept"
	case nostr.KindMove:
		return "move"
	case nostr.KindResult:
		return "result"
	case nostr.KindRequest:
		return "request"
	case nostr.KindRuling:
		return "ruling"
	}
	return fmt.Sprintf("kind %d", k)
}

var matchLink = regexp.MustCompile(`m/([0-9a-f]{64})\.html`)

// checkSite builds the site from the store and checks that every match
// has a page and a match.json that verifies to the fold's summary, and
// that some other page (or matches.json) links it.
func checkSite(ctx context.Context, o Options, rep *Report, data, dir, daemon string, ref map[string]*match.State) string {
	st, err := store.Open(filepath.Join(data, "vesper.db"))
	if err != nil {
		rep.fail("site: %v", err)
		return "failed"
	}
	defer st.Close()
	now := time.Now().Unix()
	t0 := time.Now()
	if o.BuildSite == nil {
		return "skipped: no site builder"
	}
	if err := o.BuildSite(ctx, st, dir, daemon, now); err != nil {
		rep.fail("site build: %v", err)
		return "failed"
	}
	rep.Timings["site"] = time.Since(t0).Round(time.Millisecond).String()
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return "skipped: this build's site builder wrote no index.html (vesper site build is not wired in yet)"
	}
	linked, err := siteLinks(dir, ref)
	if err != nil {
		rep.fail("site: %v", err)
		return "failed"
	}
	bad := 0
	for id, s := range ref {
		if problem := matchPageProblem(dir, id, s, linked[id], now); problem != "" {
			bad++
			if bad <= 5 {
				rep.fail("site: match %s: %s", id, problem)
			}
		}
	}
	if bad > 0 {
		rep.fail("site: %d of %d matches have a problem", bad, len(ref))
		return "failed"
	}
	if broken, err := brokenLinks(dir); err != nil || len(broken) > 0 {
		rep.fail("site: %d broken links (%v), first: %v", len(broken), err, broken[:min(len(broken), 5)])
		return "failed"
	}
	return fmt.Sprintf("ok: %d match pages, each linked, each match.json verifies, each final chess game graded, no broken link", len(ref))
}

// siteLinks returns the matches some page of the site in dir links, other
// than the match's own page, or that matches.json lists.
func siteLinks(dir string, ref map[string]*match.State) (map[string]bool, error) {
	// The site's directory is a symlink to the current build, and WalkDir
	// does not follow a symlink even at its root.
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	linked := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		name := e.Name()
		if !strings.HasSuffix(name, ".html") && name != "matches.json" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		self := strings.TrimSuffix(name, ".html")
		for _, m := range matchLink.FindAllSubmatch(b, -1) {
			if string(m[1]) != self {
				linked[string(m[1])] = true
			}
		}
		if name == "matches.json" {
			for id := range ref {
				if bytes.Contains(b, []byte(id)) {
					linked[id] = true
				}
			}
		}
		return nil
	})
	return linked, err
}

// matchPageProblem says what is wrong with match id's files in the site
// ("" when nothing): linked, a page, a match.json that verifies to the
// fold's summary s, and for a final chess game its analysis.
func matchPageProblem(dir, id string, s *match.State, linked bool, now int64) string {
	if !linked {
		return "no page links it"
	}
	raw, err := os.ReadFile(filepath.Join(dir, "m", id+".json"))
	if err != nil {
		return err.Error()
	}
	if _, err := os.Stat(filepath.Join(dir, "m", id+".html")); err != nil {
		return err.Error()
	}
	got, err := verifyMatchJSON(raw, now)
	if err != nil {
		return "match.json: " + err.Error()
	}
	if want := bytes.TrimSpace(match.MarshalLine(s.Summary(now))); !bytes.Equal(got, want) {
		return fmt.Sprintf("match.json verifies to\n  %s\nnot\n  %s", got, want)
	}
	if s.Final && s.Kind == nostr.GameChess && len(s.Moves) > 0 {
		return analysedPage(dir, id)
	}
	return ""
}

// analysedPage says what a final chess game's page lacks of its analysis
// (issue 18): analysis.json graded done, and the evaluation graph.
func analysedPage(dir, id string) string {
	raw, err := os.ReadFile(filepath.Join(dir, "m", id+".analysis.json"))
	if err != nil {
		return "no analysis.json: " + err.Error()
	}
	g, err := analysis.Parse(raw)
	if err != nil || g.Status != analysis.StatusDone {
		return fmt.Sprintf("analysis.json not done (%v)", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "m", id+".html"))
	if err != nil || !bytes.Contains(page, []byte(`<svg class="evalgraph"`)) || !bytes.Contains(page, []byte("analysis.json")) {
		return "the page shows no evaluation graph or no link to analysis.json"
	}
	return ""
}

// verifyMatchJSON is `vesper verify` of one file at a given now.
func verifyMatchJSON(raw []byte, now int64) ([]byte, error) {
	f, err := match.ParseFile(raw)
	if err != nil {
		return nil, err
	}
	id := f.Match
	if id == "" {
		if id, err = match.FindChallenge(f.Events); err != nil {
			return nil, err
		}
	}
	s, err := match.Fold(id, f.Events, f.SeenAt)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSpace(match.MarshalLine(s.Summary(now))), nil
}
