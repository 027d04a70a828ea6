package site

import (
	"strings"
	"unicode"
)

// Warnings shown beside a name that imitates something a reader trusts.
const (
	warnKey   = "name looks like a key"
	warnHouse = "not the house"
)

// nameWarning flags a display name that could pass for an npub (or hex
// key), or for the house: any account may name itself anything, and the
// short npub beside every name is what identifies it. The house's own name
// is never flagged.
func nameWarning(name string, isHouse bool, houseName string) string {
	if name == "" || isHouse {
		return ""
	}
	folded := fold(name)
	if strings.Contains(folded, "npub1") || strings.Contains(folded, "nsec1") || hexRun(name) >= 8 {
		return warnKey
	}
	h := fold(houseName)
	if strings.Contains(folded, "vesper") || (len(h) >= 3 && strings.Contains(folded, h)) {
		return warnHouse
	}
	return ""
}

// fold lowercases and keeps letters and digits only, so "Vesper  House",
// "vesper-house" and "VESPER_HOUSE" compare equal.
func fold(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hexRun is the longest run of hex digits in s.
func hexRun(s string) int {
	best, run := 0, 0
	for _, r := range s {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
