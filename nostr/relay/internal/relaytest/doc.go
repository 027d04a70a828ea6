// Package relaytest holds what the tests of nostr/relay and its parts
// (reconcile, follow, limits) share: a loopback relay with no NIP-11
// document cached for its address, signed moves, and a relay that refuses
// everything until the client authenticates (NIP-42). It is used by tests
// only, and is internal so that nothing else leans on it.
package relaytest
