package hostile

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// IDFlood is a NIP-77 answer (Options.Neg) that claims n ids the client
// never had in every round, all below created_at 1000, and a fingerprint
// above that matches nothing, so the client answers and the next round
// brings n more: issue 30, item 1, where six relays answering so took a
// daemon that followed them to 4.55 GB.
func IDFlood(n int) func(round int) string {
	return func(round int) string {
		var b strings.Builder
		b.WriteString("61" + negVarint(1001) + "00" + "02" + negVarint(n))
		for i := range n {
			fmt.Fprintf(&b, "%016x%048x", round+1, i)
		}
		b.WriteString("00" + "00" + "01" + strings.Repeat("ee", 16))
		return b.String()
	}
}

// negVarint is negentropy's varint: base 128, most significant group
// first, every byte but the last with its high bit set.
func negVarint(n int) string {
	b := []byte{byte(n & 0x7f)}
	for n >>= 7; n > 0; n >>= 7 {
		b = append([]byte{byte(n&0x7f) | 0x80}, b...)
	}
	return hex.EncodeToString(b)
}
