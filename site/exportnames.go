package site

// Known says whether the Exporter's Input holds pubkey's profile: a
// record signed before it is known would carry the bare npub for good.
func (e *Exporter) Known(pubkey string) bool {
	_, ok := e.b.in.Profiles[pubkey]
	return ok
}
