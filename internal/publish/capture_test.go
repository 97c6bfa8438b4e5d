package publish

import (
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/schema"
)

func TestKeepCaptureSwitchesRealtimeOnForWebhooksTablesAndRefusesToStopIt(t *testing.T) {
	parse := func(doc string) schema.Document {
		t.Helper()
		d, err := schema.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	const (
		off  = `{"tables": [{"name": "posts", "columns": []}, {"name": "notes", "columns": []}]}`
		on   = `{"tables": [{"name": "posts", "realtime": true, "columns": []}, {"name": "notes", "columns": []}]}`
		gone = `{"tables": [{"name": "notes", "columns": []}]}`
	)
	cases := []struct {
		what       string
		pub, draft string
		hooks      map[string][]string
		on         bool   // posts has realtime on in the result
		why        string // why it was switched on
		problem    string // the key of the refusal, with both webhooks in it
	}{
		{what: "no webhook leaves the draft as it is", pub: off, draft: off},
		{what: "a webhook's table without capture gets it", pub: off, draft: off, hooks: map[string][]string{"posts": {"wh_1"}},
			on: true, why: "webhook wh_1 delivers its changes"},
		{what: "a table already captured stays so", pub: on, draft: on, hooks: map[string][]string{"posts": {"wh_1"}}, on: true},
		{what: "turning a webhook's table's realtime off is refused", pub: on, draft: off, hooks: map[string][]string{"posts": {"wh_1", "wh_2"}},
			problem: "tables[0].realtime"},
		{what: "dropping a webhook's table is refused", pub: on, draft: gone, hooks: map[string][]string{"posts": {"wh_1", "wh_2"}},
			problem: "posts"},
		{what: "a table neither version has is let be", pub: gone, draft: gone, hooks: map[string][]string{"posts": {"wh_1"}}},
	}
	for _, c := range cases {
		draft := parse(c.draft)
		got, problems := keepCapture(parse(c.pub), draft, c.hooks)
		posts, _ := got.Document.Table("posts")
		if posts.Realtime != c.on || got.Why["posts"] != c.why {
			t.Errorf("%s: posts realtime %v, why %q; want %v, %q", c.what, posts.Realtime, got.Why["posts"], c.on, c.why)
		}
		if c.problem == "" && len(problems) > 0 {
			t.Errorf("%s: problems %v, want none", c.what, problems)
		}
		if msg := problems[c.problem]; c.problem != "" && (len(problems) != 1 || !strings.Contains(msg, "webhooks wh_1, wh_2 deliver the changes of posts")) {
			t.Errorf("%s: problems %v, want %s naming posts and both webhooks", c.what, problems, c.problem)
		}
		if before, _ := draft.Table("posts"); before.Realtime && c.draft == off {
			t.Errorf("%s: the caller's draft was changed", c.what)
		}
	}
}
