package mcpseat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vesper/match"
	"vesper/seat"
)

// Refusal is the structured content of every tool call that did not do what
// was asked (isError true). Rule is a stable token: the fold's own reason
// when the rules refuse (wrong_player, illegal_move, late, ...), or one of
// the seat's tokens (bad_argument, not_found, relays, ...). The context
// fields are those an agent needs to retry.
type Refusal struct {
	OK         bool             `json:"ok" jsonschema:"always false for a refusal"`
	Rule       string           `json:"rule" jsonschema:"stable machine token saying which rule refused"`
	Reason     string           `json:"reason" jsonschema:"one line for a human or a model"`
	Match      string           `json:"match,omitempty"`
	Ply        int              `json:"ply,omitempty" jsonschema:"the pending ply"`
	ToMove     *seat.Player     `json:"to_move,omitempty"`
	Deadline   *seat.Time       `json:"deadline,omitempty"`
	LegalMoves []seat.LegalMove `json:"legal_moves,omitempty" jsonschema:"the legal moves now, for an illegal move"`
}

func (r *Refusal) Error() string { return "refused (" + r.Rule + "): " + r.Reason }

// Tokens of refusals that do not come from the fold.
const (
	RuleBadArgument = "bad_argument" // an argument that is not what its schema says
	RuleNotFound    = "not_found"    // no such match on the relays that answered
	RuleRelays      = "relays"       // no relay answered or accepted
	RuleNotPlayer   = match.IgnNotPlayer
	RuleNoMatch     = "no_match" // the id names an event that is not a valid challenge
	RuleCancelled   = "cancelled"
	RuleInternal    = "internal"
)

func refuse(rule, format string, args ...any) *Refusal {
	return &Refusal{Rule: rule, Reason: fmt.Sprintf(format, args...)}
}

// handler is a tool's body: a typed answer, or a refusal.
type handler[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, *Refusal)

// addTool registers a tool whose input schema is derived from In and whose
// output schema from Out. It does what mcp.AddTool does for the arguments
// (validation against the schema, so a model sees a clear refusal instead of
// a zero value), but a refusal keeps its structured content: mcp.AddTool
// would replace it with the output type's zero value or reduce it to text,
// and an agent needs the rule token and the legal moves to retry.
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, tweak func(*jsonschema.Schema), h handler[In, Out]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpseat: tool %s: input schema: %v", t.Name, err)) // a programming error, found by every test
	}
	if tweak != nil {
		tweak(in)
	}
	out, err := outputSchema[Out]()
	if err != nil {
		panic(fmt.Sprintf("mcpseat: tool %s: output schema: %v", t.Name, err))
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("mcpseat: tool %s: input schema: %v", t.Name, err))
	}
	t.InputSchema, t.OutputSchema = in, out
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, rf := decodeArgs[In](req.Params.Arguments, resolved)
		if rf != nil {
			return refusalResult(rf), nil
		}
		res, rf := h(ctx, req, args)
		if rf == nil && isNil(res) {
			// The schema promises an object; null would fail every
			// validating client, so a handler's slip is a refusal.
			rf = refuse(RuleInternal, "vesper: tool %s answered nothing", t.Name)
		}
		if rf != nil {
			return refusalResult(rf), nil
		}
		b := jsonLine(res)
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
			StructuredContent: json.RawMessage(b),
		}, nil
	})
}

// outputSchema is the schema of a tool's structured content, an object in
// every case: MCP requires "type": "object" at the root, and the official
// TypeScript SDK (what most hosts are built on) rejects the whole tools/list
// when one tool's output schema says otherwise. jsonschema.For gives a
// pointer type ["null", "object"], but an answer is never null, so the
// answer's schema is derived from what Out points to. The same SDK also
// validates the structured content of an isError result against the output
// schema, so a Refusal is the schema's other branch: without it every
// refused move would reach the host as a protocol error instead of a
// refusal the model can read and retry.
func outputSchema[Out any]() (*jsonschema.Schema, error) {
	typ := reflect.TypeFor[Out]()
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	answer, err := jsonschema.ForType(typ, nil)
	if err != nil {
		return nil, err
	}
	refusal, err := jsonschema.For[Refusal](nil)
	if err != nil {
		return nil, err
	}
	if answer.Type != "object" || refusal.Type != "object" {
		return nil, fmt.Errorf("%v is not a JSON object", typ)
	}
	answer.Description = "the answer (isError false)"
	refusal.Description = "a refusal (isError true): nothing was published"
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{answer, refusal}}, nil
}

// isNil says v is a nil pointer, map or slice: an answer the output schema
// does not allow.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// argsChecker is implemented by arguments that deserve a clearer refusal
// than the schema validator's message for some values; check sees the
// arguments before validation, after the defaults.
type argsChecker interface {
	check(args map[string]any) *Refusal
}

// decodeArgs validates the arguments against the input schema (after its
// defaults) and decodes them.
func decodeArgs[In any](raw json.RawMessage, schema *jsonschema.Resolved) (In, *Refusal) {
	var zero In
	m := map[string]any{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &m); err != nil {
			return zero, refuse(RuleBadArgument, "arguments are not a JSON object: %v", err)
		}
	}
	if err := schema.ApplyDefaults(&m); err != nil {
		return zero, refuse(RuleBadArgument, "arguments: %v", err)
	}
	if c, ok := any(zero).(argsChecker); ok {
		if rf := c.check(m); rf != nil {
			return zero, rf
		}
	}
	if err := schema.Validate(m); err != nil {
		return zero, refuse(RuleBadArgument, "arguments: %v", err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return zero, refuse(RuleBadArgument, "arguments: %v", err)
	}
	var in In
	if err := json.Unmarshal(b, &in); err != nil {
		return zero, refuse(RuleBadArgument, "arguments: %v", err)
	}
	return in, nil
}

// refusalResult is an isError result: one line of text first (what a model
// reads), the same object as JSON text for clients that ignore structured
// content, and the object itself.
func refusalResult(rf *Refusal) *mcp.CallToolResult {
	rf.OK = false
	b := jsonLine(rf)
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{
			&mcp.TextContent{Text: rf.Error()},
			&mcp.TextContent{Text: string(b)},
		},
		StructuredContent: json.RawMessage(b),
	}
}

// jsonLine encodes without HTML escaping, like every JSON the CLI prints.
func jsonLine(v any) []byte {
	return bytes.TrimRight(match.MarshalLine(v), "\n")
}

// enum restricts a string property of an input schema to fixed values, which
// the Go types cannot say.
func enum(prop string, values ...string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		if p == nil {
			panic("mcpseat: no property " + prop) // a programming error
		}
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
	}
}

// bounds sets a numeric property's minimum and maximum.
func bounds(prop string, lo, hi float64) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		if p == nil {
			panic("mcpseat: no property " + prop)
		}
		p.Minimum, p.Maximum = &lo, &hi
	}
}

// defaultTo sets a property's default, which the arguments get when absent.
func defaultTo(prop, value string) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		p := s.Properties[prop]
		if p == nil {
			panic("mcpseat: no property " + prop)
		}
		p.Default = json.RawMessage(value)
	}
}

func all(fs ...func(*jsonschema.Schema)) func(*jsonschema.Schema) {
	return func(s *jsonschema.Schema) {
		for _, f := range fs {
			f(s)
		}
	}
}
