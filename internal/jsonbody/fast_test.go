package jsonbody

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// stdObject is what decodeObject gave before fastObject: encoding/json
// with UseNumber, one object and nothing after it.
func stdObject(raw []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return m, true
}

var fastSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"title":"Bench post 1-2","views":3,"author_id":42}`,
	`{"n":-0,"m":0.5,"e":1e10,"E":-2.5E-3,"big":123456789012345678901234567890}`,
	`{"t":true,"f":false,"z":null,"arr":[1,"x",[],{},[null]],"o":{"k":{"k":[{"k":1}]}}}`,
	`{"s":"caf\u00e9 \ud83d\ude00 tab\t nl\n \"q\" \\ \/ \b\f\r"}`,
	`{"s":"raw é 😀 \u0000 nul"}`, `{"k\"ey":"v"}`, `{"\u006b":1}`, "{\"a\"\t:\r\n1 }\n",
	// Refused by the grammar: fastObject must leave them to encoding/json.
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":+1}`, `{"a":-}`, `{"a":tru}`, `{"a":nul}`,
	`{"a":1,}`, `{,}`, `{"a" 1}`, `{a:1}`, `{"a":[1,]}`, `{"a":[1 2]}`, `{"a":"x}`, "{\"a\":\"\x01\"}",
	`{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, `{"a":1}x`, `{"a":1}{}`, `{"a":1`, `{`,
	`[]`, `[{"a":1}]`, ` [ {"a":1} , {"b":[2]} ] `, `[{"a":1},2]`, `[{"a":1},null]`, `[{"a":1}]]`, `[{"a":1},]`, `"s"`, `1`, `null`, ``, `   `, `{"a":NaN}`, `{"a":Infinity}`, `{'a':1}`,
	`{"a":"\ud83d\u0041"}`, `{"a":1}` + strings.Repeat(" ", 3),
	strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70),
	strings.Repeat(`{"a":`, 10) + `[` + strings.Repeat(`[`, 10) + strings.Repeat(`]`, 10) + `]` + strings.Repeat(`}`, 10),
}

// stdItems is what ObjectOrItems gave for an array before fastItems.
func stdItems(raw []byte) ([]map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var elems []json.RawMessage
	if err := dec.Decode(&elems); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	items := make([]map[string]any, len(elems))
	for i, e := range elems {
		d := json.NewDecoder(bytes.NewReader(e))
		d.UseNumber()
		if err := d.Decode(&items[i]); err != nil || items[i] == nil {
			return nil, false
		}
	}
	return items, true
}

// fastAgrees fails unless fastObject gives what encoding/json gives for
// every body it takes, and takes every body the benchmark's writes send.
func fastAgrees(t *testing.T, raw []byte) {
	t.Helper()
	if Check(raw) != nil {
		return // refused before decoding
	}
	got, ok := fastObject(raw)
	want, wantOK := stdObject(raw)
	if ok && !wantOK {
		t.Fatalf("fastObject took %q, which encoding/json refuses", raw)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: fastObject %#v, encoding/json %#v", raw, got, want)
	}
	gotItems, ok := fastItems(raw)
	wantItems, wantOK := stdItems(raw)
	if ok && (!wantOK || !reflect.DeepEqual(gotItems, wantItems)) {
		t.Fatalf("%q: fastItems %#v (ok), encoding/json %#v (ok %v)", raw, gotItems, wantItems, wantOK)
	}
}

func TestFastObjectDecodesAsEncodingJSONDoes(t *testing.T) {
	for _, s := range fastSeeds {
		fastAgrees(t, []byte(s))
	}
	// Plain objects of the shapes table writes send take the fast path.
	for _, s := range []string{`{"title":"Bench post 1-2","views":3,"author_id":42}`, `{"s":"caf\u00e9 \ud83d\ude00"}`, `{"a":[1,{"b":null}]}`} {
		if _, ok := fastObject([]byte(s)); !ok {
			t.Errorf("fastObject left %s to encoding/json", s)
		}
	}
}

func FuzzFastObjectDecodesAsEncodingJSONDoes(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(fastAgrees)
}

func BenchmarkDecodeObject(b *testing.B) {
	raw := []byte(`{"title":"Bench post 1-2","views":371,"author_id":52713}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeObject(raw); err != nil {
			b.Fatal(err)
		}
	}
}
