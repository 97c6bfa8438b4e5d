package envelope

import (
	"encoding/json"
	"testing"
)

func TestAppendStringWritesWhatMarshalWrites(t *testing.T) {
	for _, s := range []string{"Record retrieved successfully", `a "quoted" <b> & c\d`, "tab\tnew\nline", "naïve ☃", "bad \xff utf-8", "\u2028"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	}
}
