package nostr

// UsageField is one value a usage tag reported (section 8.3).
type UsageField struct {
	Key   string // as the tag spells it: "input_tokens", ...
	Value float64
}

// Fields lists the present fields in the tag's order. An absent field is
// left out: a reader shows it as absent, never as zero.
func (u Usage) Fields() []UsageField {
	var out []UsageField
	for i, f := range u.fields() {
		if *f != nil {
			out = append(out, UsageField{Key: usageKeys[i], Value: **f})
		}
	}
	return out
}

// UsageKeys are section 8.3's usage keys in the tag's order.
func UsageKeys() []string { return append([]string(nil), usageKeys...) }
