package nostr

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	gn "github.com/nbd-wtf/go-nostr"
)

// A relay list (NIP-65, kind 10002) names the relays its author writes to
// (where its events are found) and reads from (where an event that tags
// the author should be sent). Anyone can sign one, so reading it is
// bounded and strict: an entry whose URL or marker is not exactly right is
// skipped, never guessed at.

// MaxRelayListEntries is how many distinct relays of one list are kept; the
// rest are skipped. Lists in use name a handful; a list of thousands would
// otherwise become thousands of connections.
const MaxRelayListEntries = 32

// maxRelayURL bounds one relay URL (real ones are a few dozen bytes).
const maxRelayURL = 256

// Markers of an r tag's third element.
const (
	RelayRead  = "read"
	RelayWrite = "write"
)

// RelayList is a parsed kind 10002 event.
type RelayList struct {
	Author    string
	CreatedAt int64
	Event     string // the event's id
	// Read and Write are normalised relay URLs (NormalizeRelayURL), in the
	// list's order, each once. An entry without a marker is in both.
	Read  []string
	Write []string
	// Skipped counts r tags not used: a URL that is not a ws:// or wss://
	// relay, an unknown marker, or an entry past MaxRelayListEntries.
	Skipped int
}

// ParseRelayList reads a kind 10002 event. Each ["r", URL] or ["r", URL,
// "read"|"write"] tag is an entry (elements after the marker are not
// read); other tags are not entries. A relay named twice gets both
// markers' roles. Only the kind is an error: a list whose every entry is
// bad is an empty list, as NIP-65 reads it.
func ParseRelayList(ev *Event) (*RelayList, error) {
	if ev == nil || ev.Kind != KindRelayList {
		k := -1
		if ev != nil {
			k = ev.Kind
		}
		return nil, fmt.Errorf("nostr: kind %d is not a relay list (kind %d)", k, KindRelayList)
	}
	rl := &RelayList{Author: ev.PubKey, CreatedAt: int64(ev.CreatedAt), Event: ev.ID}
	var order []string
	roles := map[string][2]bool{} // url -> read, write
	for _, t := range ev.Tags {
		if len(t) == 0 || t[0] != RelayTag {
			continue
		}
		if len(t) < 2 {
			rl.Skipped++
			continue
		}
		read, write := true, true
		if len(t) >= 3 {
			switch t[2] {
			case RelayRead:
				write = false
			case RelayWrite:
				read = false
			default:
				rl.Skipped++
				continue
			}
		}
		u, err := NormalizeRelayURL(t[1])
		if err != nil {
			rl.Skipped++
			continue
		}
		r, ok := roles[u]
		if !ok {
			if len(order) == MaxRelayListEntries {
				rl.Skipped++
				continue
			}
			order = append(order, u)
		}
		roles[u] = [2]bool{r[0] || read, r[1] || write}
	}
	for _, u := range order {
		if roles[u][0] {
			rl.Read = append(rl.Read, u)
		}
		if roles[u][1] {
			rl.Write = append(rl.Write, u)
		}
	}
	return rl, nil
}

// NewRelayList builds an unsigned kind 10002 event: a relay in both read
// and write gets an unmarked r tag, the others "read" or "write". The URLs
// are normalised; a bad one, or more than MaxRelayListEntries relays, is
// an error (an empty list is allowed: it says the author names none).
func NewRelayList(read, write []string, createdAt int64) (*Event, error) {
	var order []string
	roles := map[string][2]bool{}
	add := func(raw string, isRead bool) error {
		u, err := NormalizeRelayURL(raw)
		if err != nil {
			return err
		}
		r, ok := roles[u]
		if !ok {
			order = append(order, u)
		}
		if isRead {
			r[0] = true
		} else {
			r[1] = true
		}
		roles[u] = r
		return nil
	}
	for _, u := range write {
		if err := add(u, false); err != nil {
			return nil, err
		}
	}
	for _, u := range read {
		if err := add(u, true); err != nil {
			return nil, err
		}
	}
	if len(order) > MaxRelayListEntries {
		return nil, fmt.Errorf("nostr: a relay list of %d relays, over %d", len(order), MaxRelayListEntries)
	}
	tags := Tags{}
	for _, u := range order {
		switch r := roles[u]; {
		case r[0] && r[1]:
			tags = append(tags, gn.Tag{RelayTag, u})
		case r[0]:
			tags = append(tags, gn.Tag{RelayTag, u, RelayRead})
		default:
			tags = append(tags, gn.Tag{RelayTag, u, RelayWrite})
		}
	}
	return &Event{Kind: KindRelayList, CreatedAt: Timestamp(createdAt), Tags: tags}, nil
}

// NormalizeRelayURL checks that s is a relay URL and returns its one
// spelling: scheme ws or wss, a host, no user, query or fragment, lower
// case scheme and host, no default port (80 for ws, 443 for wss), no
// trailing slash. go-nostr's NormalizeURL leaves the result as it is, so
// the relay client keys it the same way.
func NormalizeRelayURL(s string) (string, error) {
	raw := strings.TrimSpace(s)
	if raw == "" || len(raw) > maxRelayURL {
		return "", fmt.Errorf("nostr: not a relay URL: %s", quoteShort(s))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("nostr: not a relay URL: %s", quoteShort(s))
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "ws" && scheme != "wss" || u.Opaque != "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#") {
		return "", fmt.Errorf("nostr: not a ws:// or wss:// relay URL: %s", quoteShort(s))
	}
	host, port := u.Hostname(), u.Port()
	if host == "" || strings.ContainsAny(host, " \t%") {
		return "", fmt.Errorf("nostr: relay URL without a host: %s", quoteShort(s))
	}
	if strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("nostr: relay URL with an empty port: %s", quoteShort(s))
	}
	host = strings.ToLower(host)
	if scheme == "ws" && port == "80" || scheme == "wss" && port == "443" {
		port = ""
	}
	hostport := host
	switch {
	case port != "":
		hostport = net.JoinHostPort(host, port)
	case strings.Contains(host, ":"):
		hostport = "[" + host + "]" // IPv6
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	return scheme + "://" + hostport + path, nil
}

// IsLocalRelay reports whether a normalised relay URL names this machine
// or a private network by its literal host (localhost, *.localhost,
// *.local, loopback, private, link-local or unspecified addresses). A
// daemon following strangers' relay lists skips these: otherwise anyone
// could make it connect to services behind its firewall. (A public name
// that resolves to a private address is not caught here.)
func IsLocalRelay(relayURL string) bool {
	u, err := url.Parse(relayURL)
	if err != nil {
		return true
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".local") {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsInterfaceLocalMulticast()
}

// LatestRelayLists keeps each author's newest relay list among evs, which
// must have passed Verify: the highest created_at, and of two in the same
// second the lowest id (NIP-01's rule for replaceable events). Events of
// other kinds are ignored.
func LatestRelayLists(evs []*Event) map[string]*RelayList {
	best := map[string]*Event{}
	for _, ev := range evs {
		if ev == nil || ev.Kind != KindRelayList {
			continue
		}
		b := best[ev.PubKey]
		if b == nil || ev.CreatedAt > b.CreatedAt || ev.CreatedAt == b.CreatedAt && ev.ID < b.ID {
			best[ev.PubKey] = ev
		}
	}
	out := make(map[string]*RelayList, len(best))
	for pk, ev := range best {
		if rl, err := ParseRelayList(ev); err == nil {
			out[pk] = rl
		}
	}
	return out
}

// Has reports whether the list names u (normalised) for reading or writing.
func (rl *RelayList) Has(u string) bool {
	return slices.Contains(rl.Read, u) || slices.Contains(rl.Write, u)
}
