package limits

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"

	"vesper/internal/netguard"
	"vesper/nostr/relay/internal/wire"
)

// MaxInfoSize bounds a relay's NIP-11 document. Real documents are a few
// KiB; a relay serving more is not read further (a 1 MB document, gzipped
// or not, is otherwise decoded whole, for every publication).
const MaxInfoSize = 64 << 10

// How long a NIP-11 answer is reused. A relay's limits change rarely; a
// relay that did not answer is asked again sooner.
const (
	infoTTL     = 10 * time.Minute
	infoFailTTL = 30 * time.Second
)

// Info is what we read from a relay's NIP-11 document.
type Info struct {
	Doc *nip11.RelayInformationDocument // nil: no usable document
	// maxFilters is limitation.max_filters, which go-nostr's type lacks
	// (older NIP-11 revisions and some relays still announce it).
	MaxFilters int
}

// authRequired reports that the relay says it wants NIP-42 AUTH before it
// serves or stores anything.
func (i Info) AuthRequired() bool {
	return i.Doc != nil && i.Doc.Limitation != nil && i.Doc.Limitation.AuthRequired
}

// pageLimit is the "limit" to ask for, given ours: the relay's max_limit
// when it is lower, and then a short page is known to be the last one.
func (i Info) PageLimit(ours int) (limit int, capKnown bool) {
	if i.Doc != nil && i.Doc.Limitation != nil {
		if m := i.Doc.Limitation.MaxLimit; m > 0 && m <= ours {
			return m, true
		}
	}
	return ours, false
}

type infoEntry struct {
	done    chan struct{} // closed once info is set
	info    Info
	expires time.Time
}

// infoCache shares NIP-11 answers between the client, relay.Fetch and relay.Publish
// (which fetch it for every publication to every relay): one request per
// relay per TTL, and concurrent callers wait for the one in flight.
type infoCache struct {
	mu sync.Mutex
	m  map[string]*infoEntry
}

var infos = &infoCache{m: make(map[string]*infoEntry)}

// get returns url's document, fetching it if the cached one is missing or
// stale. A caller whose ctx ends while another fetches gets no document.
func (ic *infoCache) get(ctx context.Context, url string, timeout time.Duration, guard *netguard.Policy) Info {
	key := url
	if guard != nil {
		// Asked for a relay someone else named: its answer (or refusal)
		// is not the one for the same URL configured by the operator.
		key = fmt.Sprintf("guard %v %s", guard.AllowPrivate, url)
	}
	ic.mu.Lock()
	e := ic.m[key]
	if e != nil {
		select {
		case <-e.done:
			if time.Now().After(e.expires) {
				e = nil
			}
		default: // in flight
		}
	}
	if e == nil {
		e = &infoEntry{done: make(chan struct{})}
		ic.m[key] = e
		ic.mu.Unlock()
		// Fetched on its own context so that one caller giving up does
		// not fail the others waiting for it; timeout bounds it.
		info, err := read(context.WithoutCancel(ctx), url, timeout, wire.HTTPClient(guard))
		e.info = info
		e.expires = time.Now().Add(infoTTL)
		if err != nil {
			e.expires = time.Now().Add(infoFailTTL)
		}
		close(e.done)
		return info
	}
	ic.mu.Unlock()
	select {
	case <-e.done:
		return e.info
	case <-ctx.Done():
		return Info{}
	}
}

// forget drops what the cache holds for url. The cache is the process's,
// and a relay started on a port another one used a moment ago (every test
// relay is on an ephemeral loopback port) must not be read by the old
// relay's document: TestAuthFirst failed in CI when a relay without
// auth_required had held its port.
func (ic *infoCache) forget(url string) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	for _, u := range []string{url, gn.NormalizeURL(url)} {
		delete(ic.m, u)
		delete(ic.m, "guard false "+u)
		delete(ic.m, "guard true "+u)
	}
}

// Read fetches and decodes url's NIP-11 document, reading at most
// MaxInfoSize bytes of it (after any transfer decompression, which Go's
// transport does as it reads, so a compressed bomb costs no more).
func Read(ctx context.Context, url string, timeout time.Duration) (Info, error) {
	return read(ctx, url, timeout, http.DefaultClient)
}

func read(ctx context.Context, url string, timeout time.Duration, client *http.Client) (Info, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := gn.NormalizeURL(url)
	if len(u) < 8 {
		return Info{}, fmt.Errorf("relay: bad relay URL %q", url)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http"+u[2:], nil)
	if err != nil {
		return Info{}, err
	}
	req.Header.Set("Accept", "application/nostr+json")
	resp, err := client.Do(req)
	if err != nil {
		return Info{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Info{}, fmt.Errorf("relay: %s: NIP-11: HTTP %d", url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxInfoSize+1))
	if err != nil {
		return Info{}, err
	}
	if len(body) > MaxInfoSize {
		return Info{}, fmt.Errorf("relay: %s: NIP-11 document over %d bytes", url, MaxInfoSize)
	}
	var doc nip11.RelayInformationDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return Info{}, fmt.Errorf("relay: %s: NIP-11: %w", url, err)
	}
	doc.URL = u
	var extra struct {
		Limitation struct {
			MaxFilters int `json:"max_filters"`
		} `json:"limitation"`
	}
	_ = json.Unmarshal(body, &extra) // a wrong type there only loses the hint
	return Info{Doc: &doc, MaxFilters: extra.Limitation.MaxFilters}, nil
}

// REQ are how a relay bounds subscriptions, from its NIP-11 document
// or, where it says nothing, conservative guesses: relays close the
// connection (khatru) or the subscription when a REQ breaks them.
type REQ struct {
	MaxMessage int // bytes of one REQ
	MaxFilters int // filters in one REQ
	MaxSubs    int // subscriptions open at once on one connection
}

// Guesses for relays that do not announce their limits, and the ranges a
// relay's announcement is clamped to (a hostile document could say 0 or a
// billion).
const (
	guessMaxMessage = 64 << 10
	guessMaxFilters = 10
	guessMaxSubs    = 20
	// reservedSubs are kept free of live subscriptions: one for the pager,
	// the rest for one-shot queries on the same connection.
	reservedSubs = 4
)

func Of(info Info) REQ {
	l := REQ{MaxMessage: guessMaxMessage, MaxFilters: guessMaxFilters, MaxSubs: guessMaxSubs}
	if info.Doc != nil && info.Doc.Limitation != nil {
		d := info.Doc.Limitation
		if d.MaxMessageLength > 0 {
			l.MaxMessage = min(max(d.MaxMessageLength, 4096), 1<<20)
		}
		if d.MaxSubscriptions > 0 {
			l.MaxSubs = min(d.MaxSubscriptions, 100)
		}
	}
	if info.MaxFilters > 0 {
		l.MaxFilters = min(info.MaxFilters, 100)
	}
	return l
}

// authorsPerFilter is how many authors one filter may list so that it fits
// in a REQ well inside maxMessage: an author costs 67 bytes ("hex",).
func (l REQ) AuthorsPerFilter() int {
	return min(250, max(1, (l.MaxMessage/2)/67))
}

// liveSubs is how many long-lived subscriptions a connection may hold.
func (l REQ) LiveSubs() int { return max(1, l.MaxSubs-reservedSubs) }

// reqOverhead is the bytes of a REQ around its filters:
// ["REQ","vesper-NNNNNNNN", ... ].
const reqOverhead = 40

// PackREQs groups filters into REQs of at most l.MaxFilters filters and
// l.MaxMessage bytes. A filter too big alone still gets a REQ of its own
// (the relay may refuse it; nothing smaller is possible).
func PackREQs(filters []gn.Filter, l REQ) [][]gn.Filter {
	var out [][]gn.Filter
	var cur []gn.Filter
	size := reqOverhead
	for _, f := range filters {
		b, err := f.MarshalJSON()
		n := len(b) + 1
		if err != nil {
			n = 0
		}
		if len(cur) > 0 && (len(cur) >= l.MaxFilters || size+n > l.MaxMessage) {
			out = append(out, cur)
			cur, size = nil, reqOverhead
		}
		cur = append(cur, f)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// ProfileREQs are the live profile subscriptions for authors, packed
// within l and at most maxREQs of them; the authors left over are
// returned (they are fetched, not subscribed to live).
func ProfileREQs(kinds []int, authors []string, l REQ, maxREQs int) (reqs [][]gn.Filter, rest []string) {
	per := l.AuthorsPerFilter()
	var fs []gn.Filter
	for chunk := range slices.Chunk(authors, per) {
		fs = append(fs, gn.Filter{Kinds: slices.Clone(kinds), Authors: slices.Clone(chunk), LimitZero: true})
	}
	reqs = PackREQs(fs, l)
	maxREQs = max(0, maxREQs)
	if len(reqs) <= maxREQs {
		return reqs, nil
	}
	for _, r := range reqs[maxREQs:] {
		for _, f := range r {
			rest = append(rest, f.Authors...)
		}
	}
	return reqs[:maxREQs], rest
}

// Get returns url's NIP-11 document from the process's cache, fetching it
// within timeout if the cached one is missing or stale.
func Get(ctx context.Context, url string, timeout time.Duration) Info {
	return infos.get(ctx, url, timeout, nil)
}

// GetVia is Get for a relay dialed under guard (nil: as Get), one named
// by someone other than the operator: the request passes the policy.
func GetVia(ctx context.Context, url string, timeout time.Duration, guard *netguard.Policy) Info {
	return infos.get(ctx, url, timeout, guard)
}

// Forget drops what the cache holds for url (see infoCache.forget).
func Forget(url string) { infos.forget(url) }

// Document reads the relay's NIP-11 document, nil when it has none (or
// one over MaxInfoSize). Answers are cached per relay for a few minutes,
// shared by every caller in the process, and a caller whose ctx ends while
// another fetches gets nil.
func Document(ctx context.Context, url string, timeout time.Duration) *nip11.RelayInformationDocument {
	return Get(ctx, gn.NormalizeURL(url), timeout).Doc
}
