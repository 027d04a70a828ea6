package nostr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Usage is the self-reported effort of section 8.3. A nil field is absent,
// which is shown as absent, never as zero.
type Usage struct {
	InputTokens     *float64
	OutputTokens    *float64
	ReasoningTokens *float64
	CostUSD         *float64
	LatencyMS       *float64
}

// usageKeys is the one place the usage keys are spelled, in the order the
// JSON is written.
var usageKeys = []string{"input_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "latency_ms"}

func (u *Usage) fields() []**float64 {
	return []**float64{&u.InputTokens, &u.OutputTokens, &u.ReasoningTokens, &u.CostUSD, &u.LatencyMS}
}

// Empty reports whether no field is present.
func (u Usage) Empty() bool {
	for _, f := range u.fields() {
		if *f != nil {
			return false
		}
	}
	return true
}

// JSON is the tag value: the present fields in a fixed order.
func (u Usage) JSON() string {
	b := []byte{'{'}
	for i, f := range u.fields() {
		if *f == nil {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = AppendString(b, usageKeys[i])
		b = append(b, ':')
		b = strconv.AppendFloat(b, **f, 'g', -1, 64)
	}
	return string(append(b, '}'))
}

// ParseUsage reads a usage value: a JSON object whose known keys (exact
// case) hold non-negative finite numbers; unknown keys are ignored. A known
// key holding anything else refuses the whole value: a harness that writes
// "-1" or "n/a" for a count has no count we could show.
func ParseUsage(s string) (Usage, error) {
	var u Usage
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return u, &TagError{Tag: UsageTag, Token: "ignored", Reason: "usage is not a JSON object"}
	}
	for i, f := range u.fields() {
		raw, ok := obj[usageKeys[i]]
		if !ok {
			continue
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
			return Usage{}, &TagError{Tag: UsageTag, Token: "ignored", Reason: fmt.Sprintf("%s is not a number", usageKeys[i])}
		}
		v, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return Usage{}, &TagError{Tag: UsageTag, Token: "ignored", Reason: fmt.Sprintf("%s is not a finite number", usageKeys[i])}
		}
		if v < 0 {
			return Usage{}, &TagError{Tag: UsageTag, Token: "ignored", Reason: fmt.Sprintf("%s is negative", usageKeys[i])}
		}
		if v == 0 {
			v = 0 // -0 is written as 0
		}
		*f = &v
	}
	return u, nil
}

// ReadUsage reads the event's usage tag: present false without one.
func ReadUsage(ev *Event) (u Usage, present bool, err error) {
	if countOf(ev, UsageTag) == 0 {
		return Usage{}, false, nil
	}
	v, err := singleTag(ev, UsageTag)
	if err != nil {
		return Usage{}, true, err
	}
	u, err = ParseUsage(v)
	return u, true, err
}
