// Package netguard is the dial-time address policy for every connection
// whose address came from someone other than the operator.
//
// Why: vesper follows strangers. A player's NIP-65 relay list, a relay hint
// in a shared nevent, a redirect: each names a host that vesper then dials,
// with a path the stranger chose. Without a guard, a relay list naming
// ws://169.254.169.254/latest/meta-data/... or ws://127.0.0.1:6379 turns the
// daemon, or an agent's `vesper mcp`, into a blind proxy into the operator's
// own network (issue 30, item 5). Checking the URL's host is not enough: a
// public-looking hostname may resolve to 10.0.0.1, and may resolve
// differently on the second lookup (DNS rebinding). So the check runs in
// net.Dialer's Control hook, on the very IP address the socket is about to
// connect to, after every resolution and for every attempt of a
// Happy-Eyeballs dial.
//
// What is refused (CheckIP): loopback, private (RFC 1918, ULA fc00::/7),
// link-local (169.254.0.0/16, fe80::/10), shared address space (CGNAT,
// 100.64.0.0/10), NAT64 (64:ff9b::/96, 64:ff9b:1::/48, which a NAT64
// gateway maps onto any IPv4 address, private ones included), unspecified,
// "this network" (0.0.0.0/8), multicast, broadcast and the other reserved
// IPv4 space, and the deprecated IPv6 forms that embed or reach an IPv4
// address. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the
// IPv4 address it carries.
//
// Relays the operator configured are trusted as written: they are the
// operator's own choice, and docs/PLAYING.md's local setup points at
// ws://127.0.0.1. They are dialed without the guard. Allowing private
// addresses for everything else is an explicit operator flag
// (Policy.AllowPrivate, --allow-private-relays); it is never inferred from a
// configured relay being local, since that is exactly the setup in which a
// stranger's list would otherwise reach the operator's loopback services.
package netguard
