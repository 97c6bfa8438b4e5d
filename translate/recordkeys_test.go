package translate

import (
	"strings"
	"testing"
)

// The keys come from the last record however its strings, nested values
// and PostgreSQL's spacing look, and a page that does not end with a
// record is an error, not a cursor.
func TestLastRecordKeysReadTheLastRecordFromTheEnd(t *testing.T) {
	for _, c := range []struct{ name, page, want string }{
		{"json_agg spacing", "[{\"id\":1,\"age\":30}, \n {\"id\":2,\"age\":31}]", `[31,2]`},
		{"one record", `[{"age":null,"id":7}]`, `[null,7]`},
		{"braces and brackets in strings", `[{"id":1,"age":1}, {"name":"}{][","age":"]{\"}","id":9}]`, `["]{\"}",9]`},
		{"escaped backslash before a quote", `[{"id":1,"age":2}, {"age":"a\\","id":3,"note":"\\\"}"}]`, `["a\\",3]`},
		{"nested include and arrays", `[{"id":4,"age":5,"author":{"id":1,"tags":["{","}"]},"xs":[[1],[2]]}]`, `[5,4]`},
		{"non-ASCII and escapes", `[{"id":5,"age":"Zoë \u00e9 ☃"}]`, `["Zoë \u00e9 ☃",5]`},
		{"numbers and booleans", `[{"id":-1.5e3,"age":true}]`, `[true,-1.5e3]`},
	} {
		got, err := lastRecordKeys([]byte(c.page), []string{"age", "id"})
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	for _, page := range []string{`[]`, `[1, 2]`, `{"id":1}`, `[{"id":1}`, `[{"id":1,"age":]`, `[{"id":1}]`, `[{"id" 1,"age":2}]`, ``} {
		if got, err := lastRecordKeys([]byte(page), []string{"age", "id"}); err == nil {
			t.Errorf("page %q: keys %s, want an error", page, got)
		}
	}
}

// Reading from the end costs the last record, not the page: a page of
// 10,000 records is read as fast as one (a forward scan would take
// 10,000 times as long).
func BenchmarkLastRecordKeysOfABigPage(b *testing.B) {
	rec := `{"id":123456,"email":"someone@example.com","name":"Some \"quoted\" name","age":42,"is_active":true}`
	page := []byte("[" + strings.Repeat(rec+", \n ", 9999) + rec + "]")
	for b.Loop() {
		if _, err := lastRecordKeys(page, []string{"age", "id"}); err != nil {
			b.Fatal(err)
		}
	}
}
