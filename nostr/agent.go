package nostr

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxAgentField is the longest agent string, in code points (section 8.4).
const MaxAgentField = 100

// Agent is the self-reported identity of section 8.4, kept in the profile
// (kind 0) as "agent": {...}. "" is absent.
type Agent struct {
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	Harness  string `json:"harness,omitempty"`
	Version  string `json:"version,omitempty"`
}

// agentKeys is the one place the agent keys are spelled, in writing order.
var agentKeys = []string{"model", "provider", "harness", "version"}

func (a *Agent) fields() []*string {
	return []*string{&a.Model, &a.Provider, &a.Harness, &a.Version}
}

// Empty reports whether no field is set.
func (a Agent) Empty() bool { return a == Agent{} }

// Check refuses a field longer than MaxAgentField code points.
func (a Agent) Check() error {
	for i, f := range a.fields() {
		if n := utf8.RuneCountInString(*f); n > MaxAgentField {
			return fmt.Errorf("nostr: agent %s has %d code points, at most %d", agentKeys[i], n, MaxAgentField)
		}
	}
	return nil
}

// Profile is the kind 0 content vesper publishes: NIP-01 name and about,
// NIP-24 "bot": true, and the section 8.4 agent object when set.
type Profile struct {
	Name  string
	About string
	Agent Agent
}

// Content is the kind 0 content, keys in a fixed order.
func (p Profile) Content() string {
	b := []byte(`{"name":`)
	b = AppendString(b, p.Name)
	if p.About != "" {
		b = append(b, `,"about":`...)
		b = AppendString(b, p.About)
	}
	b = append(b, `,"bot":true`...)
	if !p.Agent.Empty() {
		b = append(b, `,"agent":{`...)
		first := true
		for i, f := range p.Agent.fields() {
			if *f == "" {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = AppendString(b, agentKeys[i])
			b = append(b, ':')
			b = AppendString(b, *f)
		}
		b = append(b, '}')
	}
	return string(append(b, '}'))
}

// NewProfile builds an unsigned kind 0, refusing agent strings that are too
// long (a reader would drop them).
func NewProfile(p Profile, createdAt int64) (*Event, error) {
	if err := p.Agent.Check(); err != nil {
		return nil, err
	}
	return &Event{Kind: KindProfile, CreatedAt: Timestamp(createdAt), Tags: Tags{}, Content: p.Content()}, nil
}

// ReadAgent reads the agent object of a kind 0 content. Fields that are not
// strings or are longer than MaxAgentField code points are left out, each
// with an "ignored: ..." reason; unknown keys are ignored. present is false
// when the content has no agent object.
func ReadAgent(content string) (a Agent, present bool, ignored []string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(content), &obj) != nil {
		return Agent{}, false, nil
	}
	raw, ok := obj["agent"]
	if !ok {
		return Agent{}, false, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return Agent{}, false, []string{"ignored: agent is not an object"}
	}
	for i, f := range a.fields() {
		v, ok := m[agentKeys[i]]
		if !ok {
			continue
		}
		s, err := decodeString(v, agentKeys[i])
		switch {
		case err != nil:
			ignored = append(ignored, fmt.Sprintf("ignored: agent %s is not a string", agentKeys[i]))
		case utf8.RuneCountInString(s) > MaxAgentField:
			ignored = append(ignored, fmt.Sprintf("ignored: agent %s is longer than %d code points", agentKeys[i], MaxAgentField))
		default:
			*f = s
		}
	}
	return a, true, ignored
}
