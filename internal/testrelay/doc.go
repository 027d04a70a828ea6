// Package testrelay runs small real relays on loopback for tests, each
// answering on the wire as a relay vesper meets in the field does, where
// that differs from vesper's own relayd: the strings, the order of
// messages, what is refused and what is withheld without a word.
//
// Strfry (strfry.go; a connection in strfry_conn.go, NIP-42 in
// strfry_auth.go, NIP-77 in strfry_neg.go) answers as strfry does (hoytech/strfry, read from its
// source): NIP-42 challenges sent only when a read is refused, CLOSED
// reasons behind "ERROR: ", NIP-77 with NEG-ERR "blocked: too many query
// results", OK "invalid: event too large: N". It is for tests only; no
// production code imports it.
package testrelay
