package openapi_test

import (
	"fmt"
	"testing"
)

// TestDocumentDescribesCollectionWritesAndAggregates sends issue 19's
// collection operations (bulk create, upsert that creates and that only
// updates, update and delete by filter, aggregates) and their 400s to a
// live server; send validates each request and answer against the
// served document.
func TestDocumentDescribesCollectionWritesAndAggregates(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	key := k.p.Key
	do := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		docOK, docErrs, status, ans := k.send(method, path, key, body)
		if status != want {
			t.Fatalf("%s %s: status %d, want %d: %v", method, path, status, want, ans)
		}
		if want < 400 && !docOK {
			t.Errorf("%s %s: the document refuses a request the server took: %s", method, path, describe(docErrs))
		}
		return ans
	}
	user := do("POST", "/users", map[string]any{"email": "cara@example.com", "password": "securepassword123"}, 201)
	uid := user["data"].(map[string]any)["id"]
	post := func(title, slug string, price any) map[string]any {
		return map[string]any{"title": title, "slug": slug, "featured": false, "author_id": uid, "price": price, "rating": 3}
	}

	// Bulk create: an array in, the records in order with meta out.
	bulk := do("POST", "/posts/bulk", []any{post("First", "first", "10.50"), post("Second", "second", 2), post("Third", "third", "0.25")}, 201)
	if rows, _ := bulk["data"].([]any); len(rows) != 3 || bulk["meta"].(map[string]any)["created"] != 3.0 {
		t.Errorf("bulk create answer: %v", bulk)
	}
	// An invalid item: 400 keyed by position, also per the document.
	bad := do("POST", "/posts/bulk", []any{post("Fine", "fine", 1), post("x", "Not A Slug!", 1)}, 400)
	if d := bad["error"].(map[string]any)["details"].(map[string]any); d["1.title"] == nil || d["1.slug"] == nil {
		t.Errorf("bulk 400 details: %v", d)
	}
	if ok, _, _, _ := k.send("POST", "/posts/bulk", key, []any{}); ok {
		t.Error("the document takes an empty array, which the server refuses")
	}
	do("POST", "/posts/bulk", post("Solo", "solo", 1), 400) // not an array

	// Upserts on slug: one that creates (201), one that only updates (200).
	up := do("POST", "/posts/bulk?on_conflict=slug", []any{post("Third again", "third", 3), post("Fourth", "fourth", 4)}, 201)
	if r := up["meta"].(map[string]any)["results"]; fmt.Sprint(r) != "[updated created]" {
		t.Errorf("upsert results = %v", r)
	}
	single := do("POST", "/posts?on_conflict=slug", post("First, renamed", "first", 11), 200)
	if single["data"].(map[string]any)["title"] != "First, renamed" {
		t.Errorf("single upsert answer: %v", single)
	}
	do("POST", "/posts/bulk?on_conflict=slug", []any{post("Only updated", "second", 5)}, 200)
	do("POST", "/posts?on_conflict=title", post("Nope", "nope", 1), 400) // not a unique column
	if ok, _, _, _ := k.send("POST", "/posts?on_conflict=author_id", key, post("Nope", "nope", 1)); ok {
		t.Error("the document takes on_conflict=author_id, which is not unique")
	}

	// Update and delete by filter.
	upd := do("PATCH", "/posts?filter[price][lt]=5&filter[author_id]="+fmt.Sprint(uid), map[string]any{"featured": true}, 200)
	if upd["data"].(map[string]any)["affected"] != 2.0 { // third (3) and fourth (4); second is 5, first 11
		t.Errorf("PATCH by filter: %v", upd)
	}
	do("PATCH", "/posts?search=again&max_affected=1", map[string]any{"rating": 4.5}, 200)
	do("PATCH", "/posts", map[string]any{"rating": 1}, 400)                                 // no filter
	do("PATCH", "/posts?filter[id][gt]=0&max_affected=1", map[string]any{"rating": 1}, 400) // too many
	do("PATCH", "/posts?filter[id][gt]=0", map[string]any{"title": "x"}, 400)               // too short a title
	do("PATCH", "/posts?filter[id][gt]=0&page=2", map[string]any{"rating": 1}, 400)
	if ok, _, _, _ := k.send("PATCH", "/posts?filter[id][gt]=0&max_affected=0", key, map[string]any{"rating": 1}); ok {
		t.Error("the document takes max_affected=0, which the server refuses")
	}

	// Aggregates: integers, exact decimals as strings, numbers.
	agg := do("GET", "/posts/aggregate?group_by=featured&count=*&sum=price,views&avg=rating&min=created_at&max=title&sort=-count&limit=10", nil, 200)
	groups := agg["data"].([]any)
	if len(groups) == 0 {
		t.Fatalf("no groups: %v", agg)
	}
	g := groups[0].(map[string]any)
	if _, ok := g["sum_price"].(string); !ok {
		t.Errorf("a decimal sum is a string: %v", g)
	}
	if _, ok := g["count"].(float64); !ok {
		t.Errorf("count is a number: %v", g)
	}
	do("GET", "/posts/aggregate?count=*&filter=rating%20%3E%3D%200&search=first", nil, 200) // one group, no group_by
	do("HEAD", "/posts/aggregate?group_by=status&count=*", nil, 200)
	do("GET", "/posts/aggregate?sum=title", nil, 400)
	do("GET", "/posts/aggregate?group_by=nope", nil, 400)
	do("GET", "/posts/aggregate?count=*&include=author", nil, 400)
	if ok, _, _, _ := k.send("GET", "/posts/aggregate?limit=5000&count=*", key, nil); ok {
		t.Error("the document takes limit=5000 on aggregate, which the server refuses")
	}

	del := do("DELETE", "/posts?filter[slug][in]=first,second", nil, 200)
	if del["data"].(map[string]any)["affected"] != 2.0 {
		t.Errorf("DELETE by filter: %v", del)
	}
	do("DELETE", "/posts", nil, 400)
	do("DELETE", "/posts?filter[id][gt]=0&max_affected=1", nil, 400)
}
