package translate

import (
	"encoding/json"
	"testing"
)

func TestMetaAppendJSONWritesWhatMarshalWrites(t *testing.T) {
	total, pages := int64(10001), int64(501)
	for _, m := range []Meta{
		{Page: 1, Limit: 20},
		{Page: 3, Limit: 20, Offset: 40, Total: &total, TotalPages: &pages},
		{Page: 2, Limit: 100, Offset: 100, Total: &total, TotalPages: &pages, TotalEstimated: true},
	} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("AppendJSON = %s, json.Marshal = %s", got, want)
		}
	}
}
