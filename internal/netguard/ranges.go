package netguard

import "net/netip"

// blocked lists the non-public ranges, most specific first where they
// nest (unspecified and broadcast before the /8 and /4 that hold them;
// ::1 and :: before the deprecated ::/96).
var blocked = []struct {
	name   string
	prefix netip.Prefix
}{
	{"unspecified", netip.MustParsePrefix("0.0.0.0/32")},
	{"unspecified", netip.MustParsePrefix("::/128")},
	{"loopback", netip.MustParsePrefix("::1/128")},
	{"broadcast", netip.MustParsePrefix("255.255.255.255/32")},
	{"this-network (0.0.0.0/8)", netip.MustParsePrefix("0.0.0.0/8")},
	{"loopback", netip.MustParsePrefix("127.0.0.0/8")},
	{"private (RFC 1918)", netip.MustParsePrefix("10.0.0.0/8")},
	{"private (RFC 1918)", netip.MustParsePrefix("172.16.0.0/12")},
	{"private (RFC 1918)", netip.MustParsePrefix("192.168.0.0/16")},
	{"private (ULA)", netip.MustParsePrefix("fc00::/7")},
	{"link-local", netip.MustParsePrefix("169.254.0.0/16")},
	{"link-local", netip.MustParsePrefix("fe80::/10")},
	{"site-local (deprecated)", netip.MustParsePrefix("fec0::/10")},
	{"CGNAT shared address space", netip.MustParsePrefix("100.64.0.0/10")},
	{"NAT64", netip.MustParsePrefix("64:ff9b::/96")},
	{"NAT64 (local-use)", netip.MustParsePrefix("64:ff9b:1::/48")},
	{"IETF protocol assignments", netip.MustParsePrefix("192.0.0.0/24")},
	{"benchmarking", netip.MustParsePrefix("198.18.0.0/15")},
	{"multicast", netip.MustParsePrefix("224.0.0.0/4")},
	{"multicast", netip.MustParsePrefix("ff00::/8")},
	{"reserved", netip.MustParsePrefix("240.0.0.0/4")},
	{"IPv4-compatible IPv6 (deprecated)", netip.MustParsePrefix("::/96")},
}

// CheckIP returns a *BlockedError when ip is not a public unicast address,
// nil otherwise. An IPv4-mapped IPv6 address is judged by the IPv4 address
// it carries, and a zone (fe80::1%eth0) does not hide a link-local address.
func CheckIP(ip netip.Addr) error {
	if !ip.IsValid() {
		return &BlockedError{Addr: ip, Range: "invalid"}
	}
	plain := ip.WithZone("").Unmap()
	for _, b := range blocked {
		if b.prefix.Contains(plain) {
			return &BlockedError{Addr: ip, Range: b.name, Prefix: b.prefix}
		}
	}
	return nil
}
