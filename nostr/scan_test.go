package nostr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzScanners: for any valid JSON document, the member and element
// scanners give exactly what encoding/json's RawMessage decoding gives.
func FuzzScanners(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `1`, `"s"`, ` { "a" : 1 , "b":[1, {"c":"]"}] } `,
		`{"id":"x","id":"y"}`, `{"i\u0064":"x","id":"y"}`, "{\"k\\\"\":\"v\\\\\",\"n\":-1.5e3}",
		`[["e","abc"],["p"], [] ,["x","\"]"]]`, `{"tags":[["g","a"]],"content":"{\"x\":[1]}"}`,
		"{\"\xff\":1}", `[true,false,null,{"a":{}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		if !json.Valid(doc) {
			return
		}
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal(doc, &want) != nil || want == nil
		got, ok := objectMembers(doc)
		if ok == wantErr {
			t.Fatalf("%q: object %v, encoding/json error %v", doc, ok, wantErr)
		}
		if ok {
			if len(got) != len(want) {
				t.Fatalf("%q: %d members, want %d", doc, len(got), len(want))
			}
			for k, v := range want {
				if !bytes.Equal(got[k], v) {
					t.Fatalf("%q: member %q = %q, want %q", doc, k, got[k], v)
				}
			}
		}
		var wantArr []json.RawMessage
		wantErr = json.Unmarshal(doc, &wantArr) != nil || wantArr == nil
		arr, ok := arrayElems(doc)
		if ok == wantErr {
			t.Fatalf("%q: array %v, encoding/json error %v", doc, ok, wantErr)
		}
		if ok {
			if len(arr) != len(wantArr) {
				t.Fatalf("%q: %d elements, want %d", doc, len(arr), len(wantArr))
			}
			for i := range arr {
				if !bytes.Equal(arr[i], wantArr[i]) {
					t.Fatalf("%q: element %d = %q, want %q", doc, i, arr[i], wantArr[i])
				}
			}
		}
	})
}

// FuzzSplitArray: for any bytes, SplitArray with every element valid JSON
// is exactly json.Valid of an array, with encoding/json's elements; it
// never panics on malformed input (a relay sends whatever it likes).
func FuzzSplitArray(f *testing.F) {
	for _, s := range []string{
		`[]`, ` [ ] `, `["EVENT","sub",{"id":"x","tags":[["e","]"]]}]`, `["EOSE","s"]`, `["OK","id",true,""]`,
		`[1,]`, `[,1]`, `[1 2]`, `[1,,2]`, `["a"x]`, `[{"a":1}}]`, `[1]]`, `[1] x`, `["abc`, `[{"a":"]"`,
		`[-]`, `[0,"\`, `[{"a":"\`, `[tru e]`, `[:]`, `["\"",1]`, `{}`, `[`, `]`, ``, `["EVENT","s",{"content":"\ud800"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		elems, ok := SplitArray(doc)
		allValid := ok
		for _, e := range elems {
			allValid = allValid && json.Valid(e)
		}
		var want []json.RawMessage
		isArray := json.Valid(doc) && json.Unmarshal(doc, &want) == nil && want != nil
		if allValid != isArray {
			t.Fatalf("%q: SplitArray %v with valid elements %v, encoding/json array %v", doc, ok, allValid, isArray)
		}
		if !isArray {
			return
		}
		if len(elems) != len(want) {
			t.Fatalf("%q: %d elements, want %d", doc, len(elems), len(want))
		}
		for i := range elems {
			if !bytes.Equal(elems[i], want[i]) {
				t.Fatalf("%q: element %d = %q, want %q", doc, i, elems[i], want[i])
			}
		}
	})
}
