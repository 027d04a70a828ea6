package nostr

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Result is the content of a result, timeout claim or ruling (section 1).
type Result struct {
	Result    string `json:"result"` // "first", "second" or "draw"
	Reason    string `json:"reason"`
	Plies     int    `json:"plies"`
	FinalHash string `json:"final_hash"`
}

// Result values.
const (
	First  = "first"
	Second = "second"
	Draw   = "draw"
)

// ParseResult decodes a result JSON by exact key (encoding/json's struct
// decoding would match keys case-insensitively, which the contract forbids).
func ParseResult(content string) (Result, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &obj); err != nil || obj == nil {
		return Result{}, &ResultError{Reason: "not a JSON object"}
	}
	var r Result
	var err error
	if r.Result, err = resultString(obj, "result"); err != nil {
		return Result{}, err
	}
	if r.Result != First && r.Result != Second && r.Result != Draw {
		return Result{}, &ResultError{Reason: "result " + strconv.Quote(r.Result) + " is not first, second or draw"}
	}
	if r.Reason, err = resultString(obj, "reason"); err != nil {
		return Result{}, err
	}
	if r.FinalHash, err = resultString(obj, "final_hash"); err != nil {
		return Result{}, err
	}
	raw, ok := obj["plies"]
	if !ok {
		return Result{}, &ResultError{Reason: "plies missing"}
	}
	raw = bytes.TrimSpace(raw)
	if !isIntLiteral(raw) {
		return Result{}, &ResultError{Reason: "plies is not an integer literal"}
	}
	p, perr := strconv.ParseInt(string(raw), 10, 64)
	if perr != nil || p != int64(int(p)) {
		// Too large to ever equal a real ply count; keep it unequal.
		p = -1 << 62
	}
	r.Plies = int(p)
	return r, nil
}

func resultString(obj map[string]json.RawMessage, key string) (string, error) {
	raw, ok := obj[key]
	if !ok {
		return "", &ResultError{Reason: key + " missing"}
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", &ResultError{Reason: key + " is not a string"}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &ResultError{Reason: key + " is not a string"}
	}
	return s, nil
}

func isIntLiteral(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Content returns the canonical JSON of a result, as this project signs it.
func (r Result) Content() string {
	b := []byte(`{"result":`)
	b = AppendString(b, r.Result)
	b = append(b, `,"reason":`...)
	b = AppendString(b, r.Reason)
	b = append(b, `,"plies":`...)
	b = strconv.AppendInt(b, int64(r.Plies), 10)
	b = append(b, `,"final_hash":`...)
	b = AppendString(b, r.FinalHash)
	return string(append(b, '}'))
}

// Same reports whether two results agree on what verifiers compare:
// result, plies and final_hash (the reason is informational).
func (r Result) Same(o Result) bool {
	return r.Result == o.Result && r.Plies == o.Plies && r.FinalHash == o.FinalHash
}
