package wire

import (
	"slices"

	gn "github.com/nbd-wtf/go-nostr"
)

// NormalizeURLs normalises and dedupes relay URLs, dropping unparseable
// ones: the client, following and reconciliation name a relay the same way.
func NormalizeURLs(urls []string) []string {
	var out []string
	for _, u := range urls {
		if n := gn.NormalizeURL(u); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// NormalizeURL is one relay URL as NormalizeURLs names it ("" when it
// does not parse).
func NormalizeURL(u string) string { return gn.NormalizeURL(u) }
