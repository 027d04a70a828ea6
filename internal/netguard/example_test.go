package netguard_test

import (
	"fmt"
	"net/netip"

	"vesper/internal/netguard"
)

func ExampleCheckIP() {
	fmt.Println(netguard.CheckIP(netip.MustParseAddr("::ffff:169.254.169.254")))
	fmt.Println(netguard.CheckIP(netip.MustParseAddr("1.1.1.1")))
	// Output:
	// netguard: refused to dial ::ffff:169.254.169.254: link-local (169.254.0.0/16) address; only an operator flag (--allow-private-relays) allows it
	// <nil>
}
