package apihttp

import "testing"

func TestLeadingKeyReadsTheFirstMemberOnly(t *testing.T) {
	for _, c := range []struct {
		data, key, want string
		ok              bool
	}{
		{`{"id":42,"title":"x"}`, "id", "42", true},
		{`{"id":7}`, "id", "7", true},
		{`{"id":"0b1c-uuid","n":1}`, "id", "0b1c-uuid", true},
		{`{"code":"a,b","id":1}`, "code", "a,b", true},
		{`{"title":"x","id":42}`, "id", "", false}, // not first: the caller decodes
		{`{"id":"a\"b"}`, "id", "", false},         // escaped: the caller decodes
		{`{"id":null}`, "id", "", false},
		{`{"identity":5}`, "id", "", false},
		{`{"id":`, "id", "", false},
	} {
		got, ok := leadingKey([]byte(c.data), c.key)
		if got != c.want || ok != c.ok {
			t.Errorf("leadingKey(%s, %s) = %q, %v; want %q, %v", c.data, c.key, got, ok, c.want, c.ok)
		}
	}
}
