package site

import _ "embed"

// protocolText is PROTOCOL.md, the contract this binary's fold implements,
// embedded so that every site publishes the text its verifier follows,
// whatever machine builds it (a daemon on a server has no checkout beside
// it). TestProtocolCopy checks the copy against ../shared/PROTOCOL.md,
// where the project keeps the contract, when that file is there.
//
//go:embed PROTOCOL.md
var protocolText string

// protocolPage shows the protocol's text in the site's layout; protocol.md
// beside it is the same text, byte for byte.
type protocolPage struct {
	Root, Title, Text string
}

func (b *builder) protocolPage() *protocolPage {
	return &protocolPage{Root: "", Title: "The protocol", Text: protocolText}
}
