package site

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
)

// loader serves a fixture's current states, as a store would, and records
// which matches Update asked for.
type loader struct {
	f     *fixture
	mu    sync.Mutex
	asked []string
}

func (l *loader) load(id string) (*match.State, map[string]int64, error) {
	l.mu.Lock()
	l.asked = append(l.asked, id)
	l.mu.Unlock()
	for _, s := range l.f.in.States {
		if s.Match == id {
			return s, l.f.in.SeenAt, nil
		}
	}
	return nil, nil, nil
}

func (l *loader) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.asked
	l.asked = nil
	slices.Sort(got)
	return slices.Compact(got)
}

// analyses is how a test passes the fixture's analyses (f.in.Analyses,
// the caller's store) to a build: all in Analyses, or by status with
// LoadAnalysis, holding some (held) or none in Analyses. It records the
// analyses the build loaded.
type analyses struct {
	byStatus bool
	held     []string // names of fixture matches whose analysis stays in Analyses
	mu       sync.Mutex
	loaded   []string
	store    map[string]*analysis.Game
}

// input is f.in as this form passes it.
func (a *analyses) input(f *fixture) Input {
	in := f.in
	if !a.byStatus {
		return in
	}
	a.store = f.in.Analyses
	in.Analyses, in.AnalysisStatus, in.LoadAnalysis = nil, map[string]analysis.Status{}, a.load
	for id, g := range a.store {
		in.AnalysisStatus[id] = g.Status
	}
	for _, name := range a.held {
		if g := a.store[f.ids[name]]; g != nil {
			if in.Analyses == nil {
				in.Analyses = map[string]*analysis.Game{}
			}
			in.Analyses[f.ids[name]] = g
		}
	}
	return in
}

func (a *analyses) load(id string) (*analysis.Game, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.loaded = append(a.loaded, id)
	return a.store[id], nil
}

// take returns the ids loaded since the last take, sorted, with repeats.
func (a *analyses) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	got := a.loaded
	a.loaded = nil
	slices.Sort(got)
	return got
}

// wantLoaded are the analyses a build that renders the matches ids must
// load: the done ones it does not hold, each once. (A carried-over card
// whose done analysis does not fit shows none and loads none.)
func (a *analyses) wantLoaded(in Input, ids []string) []string {
	if !a.byStatus {
		return nil
	}
	var want []string
	for _, id := range ids {
		if in.AnalysisStatus[id] == analysis.StatusDone && in.Analyses[id] == nil {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	return want
}

// TestUpdateEqualsBuild: an Update from the matches that changed gives the
// same bytes as a full Build of everything, folding only what it must,
// whether the analyses are all in memory or read through LoadAnalysis
// (then loading only those of the matches it renders again).
func TestUpdateEqualsBuild(t *testing.T) {
	for _, form := range []struct {
		name string
		a    *analyses
	}{
		{"analyses in memory", &analyses{}},
		{"analyses loaded", &analyses{byStatus: true}},
		{"analyses partly held", &analyses{byStatus: true, held: []string{"mate", "timeout"}}},
	} {
		t.Run(form.name, func(t *testing.T) { testUpdateEqualsBuild(t, form.a) })
	}
}

func testUpdateEqualsBuild(t *testing.T, a *analyses) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	l := &loader{f: f}
	var loads []string // the analyses the last update loaded
	// update runs an Update and returns the matches it folded, which are
	// those whose files it rendered again.
	update := func(t *testing.T, changed ...string) []string {
		t.Helper()
		// Update computes the ratings itself; the full build of the same
		// matches gets them as siteFromStore passes them.
		f.in.RatingGames = RatingGames(f.in.States)
		in := a.input(f)
		if _, err := Update(in, changed, l.load, out); err != nil {
			t.Fatal(err)
		}
		// The full build it must equal has every analysis in memory.
		compareFull(t, f.in, out)
		folded := l.take()
		loads = a.take()
		if want := a.wantLoaded(in, folded); !slices.Equal(loads, want) {
			t.Errorf("loaded the analyses of %v, want those of the done matches among the %d rendered: %v", loads, len(folded), want)
		}
		return folded
	}

	if _, err := Update(a.input(f), nil, l.load, out); !errors.Is(err, ErrNoPrevious) {
		t.Fatalf("Update with no previous build: %v, want ErrNoPrevious", err)
	}
	in := a.input(f)
	if _, err := Build(in, out); err != nil {
		t.Fatal(err)
	}
	compareFull(t, f.in, out)
	var all []string
	for _, s := range f.in.States {
		all = append(all, s.Match)
	}
	if got, want := a.take(), a.wantLoaded(in, all); !slices.Equal(got, want) {
		t.Errorf("Build loaded the analyses of %v, want every done one it does not hold, once: %v", got, want)
	}

	t.Run("nothing changed", func(t *testing.T) {
		if got := update(t); len(got) != 0 {
			t.Errorf("loaded %d matches, want none", len(got))
		}
	})
	t.Run("one move", func(t *testing.T) {
		m := f.games["active"]
		m.Move(bob, 6, "a7a6", m.Events[len(m.Events)-1].CreatedAt.Time().Unix()+50)
		refold(t, f, "active")
		if got, want := update(t, f.ids["active"]), []string{f.ids["active"]}; !slices.Equal(got, want) {
			t.Errorf("loaded %v, want only the changed match %v", got, want)
		}
	})
	t.Run("a new finished game", func(t *testing.T) {
		// A game finished before the mate changes the ratings the mate
		// page shows, so that page is loaded and rendered again too.
		g := testkit.NewMatch(bob, alice, "chess", "", t0-5000)
		g.Accept(t0 - 4990)
		last := g.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0-4980, 5)
		s := foldT(t, g)
		g.Result(bob, result(s, "second", "checkmate"), last+1)
		g.Result(alice, result(s, "second", "checkmate"), last+2)
		for _, ev := range g.Events {
			f.in.SeenAt[ev.ID] = int64(ev.CreatedAt) + 2
		}
		f.in.States = append(f.in.States, foldT(t, g))
		got := update(t, g.ID)
		if !slices.Contains(got, g.ID) || !slices.Contains(got, f.ids["mate"]) {
			t.Errorf("loaded %v, want the new game and the mate", got)
		}
		if slices.Contains(got, f.ids["open"]) {
			t.Errorf("loaded the open challenge, which did not change")
		}
	})
	t.Run("renamed and later", func(t *testing.T) {
		p := f.in.Profiles[carol.PublicKey()]
		p.Name = "Caroline"
		f.in.Profiles[carol.PublicKey()] = p
		f.in.Now += 1800
		if got := update(t); !slices.Contains(got, f.ids["ruling"]) || slices.Contains(got, f.ids["mate"]) {
			t.Errorf("loaded %v: want carol's matches, not the mate", got)
		}
	})
	t.Run("analysed between builds", func(t *testing.T) {
		// The ruling was waiting for its analysis; it arrives, and the
		// caller reports the match. Its page, its analysis.json and the
		// players' pages change; nothing else is folded, and of the
		// analysed matches only its analysis is loaded.
		id := f.ids["ruling"]
		s := foldT(t, f.games["ruling"])
		f.in.Analyses[id] = testAnalysis(s, cp(30), []testPly{{after: cp(20)}, {after: cp(40)}, {after: cp(-200), best: "Nc3"}})
		if got, want := update(t, id), []string{id}; !slices.Equal(got, want) {
			t.Errorf("loaded %v, want only the analysed match %v", got, want)
		}
		if a.byStatus && (len(loads) != 1 || loads[0] != id) {
			t.Errorf("LoadAnalysis was called for %v, want only the new analysis (of %d analysed matches)", loads, len(f.in.Analyses))
		}
		if page := readPage(t, out, "m/"+id+".html"); !strings.Contains(page, `<svg class="evalgraph"`) {
			t.Error("the analysed match's page has no evaluation graph")
		}
		if page := readPage(t, out, "p/"+carol.PublicKey()+".html"); !strings.Contains(page, `<h2 id="quality">`) {
			t.Error("Carol's page does not show her analysed game")
		}
	})
	t.Run("analysis arrives unreported", func(t *testing.T) {
		// A restarted caller has no marks: the timeout's failed analysis
		// was done again while it was down. Update finds it by itself.
		id := f.ids["timeout"]
		s := foldT(t, f.games["timeout"])
		f.in.Analyses[id] = testAnalysis(s, nil, gomokuPlies(s.Plies(), nil))
		if got, want := update(t), []string{id}; !slices.Equal(got, want) {
			t.Errorf("loaded %v, want the regraded match %v", got, want)
		}
	})
	t.Run("analysis fails unreported", func(t *testing.T) {
		// The five's analysis is done again and fails this time: its
		// page says so, and a failed analysis needs no load.
		id := f.ids["five"]
		f.in.Analyses[id] = failedAnalysis(foldT(t, f.games["five"]))
		if got, want := update(t), []string{id}; !slices.Equal(got, want) {
			t.Errorf("loaded %v, want the regraded match %v", got, want)
		}
		if page := readPage(t, out, "m/"+id+".html"); !strings.Contains(page, "The analysis of this game failed") {
			t.Error("the five's page does not say its analysis failed")
		}
	})
	t.Run("an analysis that does not fit", func(t *testing.T) {
		// A done analysis of a game never played shows as failed; by
		// status it is done, like its card, so the next Update keeps it.
		// (Its card, shown as failed, needs no load when it is rendered
		// again; no later step renders it, which wantLoaded assumes.)
		id := f.ids["expired"]
		s := foldT(t, f.games["expired"])
		f.in.Analyses[id] = testAnalysis(s, nil, nil)
		if got, want := update(t), []string{id}; !slices.Equal(got, want) {
			t.Errorf("loaded %v, want the regraded match %v", got, want)
		}
		if got := update(t); len(got) != 0 {
			t.Errorf("then loaded %v, want none", got)
		}
	})
	t.Run("analysis replaced", func(t *testing.T) {
		// A new engine version grades the mate again, with other figures.
		id := f.ids["mate"]
		g := f.in.Analyses[id]
		f.in.Analyses[id] = testAnalysis(foldT(t, f.games["mate"]), cp(40), []testPly{
			{after: cp(-90), best: "e4"}, {after: cp(-95)}, {after: mate(-1), best: "Nc3"}, {}})
		f.in.Analyses[id].Engine.Version = "sf_18"
		if bytes.Equal(analysisJSON(g), analysisJSON(f.in.Analyses[id])) {
			t.Fatal("the new analysis is the old one")
		}
		if got, want := update(t, id), []string{id}; !slices.Equal(got, want) {
			t.Errorf("loaded %v, want %v", got, want)
		}
	})
	t.Run("relays changed", func(t *testing.T) {
		// A relay delivered the active game's challenge: its nevent names
		// it. The same relays listed in another order change nothing.
		f.in.Relays[f.ids["active"]] = []string{"wss://relay.new.example"}
		if got, want := update(t), []string{f.ids["active"]}; !slices.Equal(got, want) {
			t.Errorf("loaded %v, want %v", got, want)
		}
		if page := readPage(t, out, "m/"+f.ids["active"]+".html"); !strings.Contains(page, "<code>wss://relay.new.example</code>") {
			t.Error("the active game's page does not name its relay")
		}
		slices.Reverse(f.in.Relays[f.ids["mate"]])
		if got := update(t); len(got) != 0 {
			t.Errorf("relays reordered: loaded %v, want none", got)
		}
	})
	t.Run("analysis goes", func(t *testing.T) {
		id := f.ids["five"]
		delete(f.in.Analyses, id)
		if got, want := update(t), []string{id}; !slices.Equal(got, want) {
			t.Errorf("loaded %v, want %v", got, want)
		}
	})
	t.Run("a match that no longer folds", func(t *testing.T) {
		id := f.ids["open"]
		f.in.States = slices.DeleteFunc(f.in.States, func(s *match.State) bool { return s.Match == id })
		update(t, id)
	})
	t.Run("committed reasoning, then its reveal", func(t *testing.T) {
		// Section 8.2: the game's reasoning.json appears with the game, and
		// a reveal (an event the fold skips) renders the match again.
		g := newTalkGame(t, now-86400, false)
		f.games["talk"], f.ids["talk"] = g.m, g.m.ID
		f.in.States = append(f.in.States, foldT(t, g.m))
		refold(t, f, "talk")
		// A new final game between two players changes the crosstable on
		// the pages of their other games of that kind: those render again.
		if got, want := update(t, g.m.ID), pairGames(f.in.States, g.m.ID); !slices.Equal(got, want) {
			t.Errorf("loaded %v, want the new game and its players' others %v", got, want)
		}
		g.reveal(alice, g.signed+5, "", 0, 2)
		refold(t, f, "talk")
		if got := update(t, g.m.ID); !slices.Equal(got, []string{g.m.ID}) {
			t.Errorf("loaded %v after the reveal, want its match", got)
		}
		if r := readReasoning(t, out, g.m.ID); strings.Join(statusesOf(r), ",") != "verified,unrevealed,verified,unrevealed" {
			t.Errorf("after the update: %v", statusesOf(r))
		}
	})
}

// TestLoadAnalysisFails: an analysis the build cannot read fails the
// build (Build as Update) and names the match; a done status with no
// LoadAnalysis to read it is an error too, not a page without grades.
func TestLoadAnalysisFails(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Build(f.in, out); err != nil {
		t.Fatal(err)
	}
	mate := f.ids["mate"]
	boom := errors.New("disk on fire")
	in := f.in
	in.Analyses, in.AnalysisStatus = nil, map[string]analysis.Status{}
	for id, g := range f.in.Analyses {
		in.AnalysisStatus[id] = g.Status
	}
	in.LoadAnalysis = func(id string) (*analysis.Game, error) {
		if id == mate {
			return nil, boom
		}
		return f.in.Analyses[id], nil
	}
	l := &loader{f: f}
	noLoader := in
	noLoader.LoadAnalysis = nil
	for _, c := range []struct {
		name string
		run  func() error
		want string // in the message
	}{
		{"Build", func() error { _, err := Build(in, out); return err }, mate},
		{"Update", func() error { _, err := Update(in, []string{mate}, l.load, out); return err }, mate},
		{"no LoadAnalysis", func() error { _, err := Build(noLoader, out); return err }, "no LoadAnalysis"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) || c.want == mate && !errors.Is(err, boom) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	// The published build is still the first one.
	compareFull(t, f.in, out)
}

// TestCardAsState: the card keeps what match's clock rules read (status,
// clock start, deadline, "the clock ran out" are match.Clock's), and its
// copies of match.State's other methods agree with them on every fixture
// state.
func TestCardAsState(t *testing.T) {
	f := newFixture(t)
	for _, s := range f.in.States {
		c := newCard(s, f.in.SeenAt, f.in.Analyses[s.Match])
		pks := []string{s.First, s.Second, s.Invitee, carol.PublicKey(), ""}
		if got, want := c.clock(), s.Clock(); got != want {
			t.Errorf("%s: card's clock %+v, want the state's %+v", s.Match[:8], got, want)
		}
		for _, pk := range pks {
			if got, want := c.role(pk), s.Role(pk); got != want {
				t.Errorf("%s: role(%.8s) %q, want %q", s.Match[:8], pk, got, want)
			}
		}
	}
}

// TestCardsFile: the card file round-trips, and anything doubtful in it
// makes Update start over rather than trust it.
func TestCardsFile(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	o := &output{dir: dir}
	var cards []*card
	for _, s := range f.in.States {
		cards = append(cards, newCard(s, f.in.SeenAt, f.in.Analyses[s.Match]))
	}
	if err := o.writeCards(cards); err != nil {
		t.Fatal(err)
	}
	got, err := readCards(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cards) {
		t.Fatalf("read %d cards, want %d", len(got), len(cards))
	}
	for _, c := range cards {
		if g := got[c.ID]; !reflect.DeepEqual(g, c) {
			t.Errorf("card %s did not round-trip: %+v, want %+v", c.ID[:8], g, c)
		}
	}
	for _, bad := range []string{"", "{}\n", `{"version":"other","count":0}` + "\n"} {
		o.write(cardsName, []byte(bad))
		if _, err := readCards(dir); !errors.Is(err, errNoCards) {
			t.Errorf("card file %q: %v, want errNoCards", bad, err)
		}
	}
}

// TestStale: the digests a caller computes from stored stamps, in any
// order, find exactly the matches that differ from the published build.
func TestStale(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := Stale(out, nil); !errors.Is(err, ErrNoPrevious) {
		t.Fatalf("Stale before any build: %v, want ErrNoPrevious", err)
	}
	if _, err := Build(f.in, out); err != nil {
		t.Fatal(err)
	}
	digests := func() map[string]string {
		d := map[string]string{}
		for _, s := range f.in.States {
			var stamps []Stamp
			for i := len(s.Events) - 1; i >= 0; i-- { // not fold order
				ev := s.Events[i]
				stamps = append(stamps, Stamp{ID: ev.ID, SeenAt: f.in.SeenAt[ev.ID]})
			}
			d[s.Match] = EventsDigest(stamps)
		}
		return d
	}
	d := digests()
	if got, err := Stale(out, d); err != nil || len(got) != 0 {
		t.Errorf("nothing changed: Stale = %v, %v; want none", got, err)
	}
	m := f.games["active"]
	m.Move(bob, 6, "a7a6", m.Events[len(m.Events)-1].CreatedAt.Time().Unix()+50)
	refold(t, f, "active")
	d = digests()
	delete(d, f.ids["open"])
	d["00"+f.ids["mate"][2:]] = "new"
	got, err := Stale(out, d)
	want := []string{"00" + f.ids["mate"][2:], f.ids["active"], f.ids["open"]}
	slices.Sort(want)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Stale = %v, %v; want %v", got, err, want)
	}
}

// pairGames is the match id and the ids of the other accepted games of
// its kind between its two players, sorted: the pages a new final game
// changes (their crosstable).
func pairGames(states []*match.State, id string) []string {
	var this *match.State
	for _, s := range states {
		if s.Match == id {
			this = s
		}
	}
	out := []string{id}
	for _, s := range states {
		if s.Match != id && s.Accepted && s.Kind == this.Kind && pairKey(s.First, s.Second) == pairKey(this.First, this.Second) {
			out = append(out, s.Match)
		}
	}
	slices.Sort(out)
	return out
}
