package openapi

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestRealtimeStreamIsDescribed(t *testing.T) {
	t.Parallel()
	// alltypes: posts has realtime on, users and tags do not.
	m := renderMap(t, compileFile(t, "alltypes.json"))
	get := at(t, m, "paths", "/realtime", "get").(map[string]any)
	if get[extStream] != true {
		t.Errorf("the stream is not marked %s: a collection runner would wait on it", extStream)
	}
	if get["operationId"] != opRealtime || !reflect.DeepEqual(strs(get["tags"]), []string{"realtime"}) {
		t.Errorf("operation id %v, tags %v", get["operationId"], get["tags"])
	}

	var schemes []string
	for _, req := range get["security"].([]any) {
		for name := range req.(map[string]any) {
			schemes = append(schemes, name)
		}
	}
	if !reflect.DeepEqual(schemes, []string{"bearerAuth", "accessTokenQuery"}) {
		t.Errorf("security %v: the credential goes in the header or in ?access_token=", get["security"])
	}
	if q := at(t, m, "components", "securitySchemes", "accessTokenQuery").(map[string]any); q["in"] != "query" || q["name"] != "access_token" {
		t.Errorf("accessTokenQuery = %v", q)
	}

	params := map[string]map[string]any{}
	for _, p := range get["parameters"].([]any) {
		p := p.(map[string]any)
		params[p["in"].(string)+" "+p["name"].(string)] = p
	}
	var got []string
	for k := range params {
		got = append(got, k)
	}
	sort.Strings(got)
	want := []string{"header Last-Event-ID", "query access_token", "query last_event_id", "query tables", "query where[posts]"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parameters %v, want %v", got, want)
	}
	tables := params["query tables"]
	if tables["required"] != true || tables["explode"] != false {
		t.Errorf("tables must be a required comma list: %v", tables)
	}
	if enum := strs(at(t, tables, "schema", "items", "enum")); !reflect.DeepEqual(enum, []string{"posts"}) {
		t.Errorf("tables enum %v, want only the realtime table", enum)
	}
	if d := params["query where[posts]"]["description"].(string); !strings.Contains(d, "filter expression grammar") {
		t.Errorf("where[posts] description %q", d)
	}

	ok := at(t, get, "responses", "200").(map[string]any)
	if typ := at(t, ok, "content", "text/event-stream", "schema", "type"); typ != "string" {
		t.Errorf("200 text/event-stream schema type %v", typ)
	}
	if _, isJSON := at(t, ok, "content").(map[string]any)["application/json"]; isJSON {
		t.Error("the stream is not JSON")
	}
	desc := ok["description"].(string)
	for _, part := range []string{"`create`", "`update`", "`delete`", `{"table", "record", "id"?}`,
		"`reset`", `{"message", "last_event_id"}`, "`error`", `{"error": {"code", "message"}}`, "`reconnect`", "heartbeat"} {
		if !strings.Contains(desc, part) {
			t.Errorf("the 200 description lacks %s: %q", part, desc)
		}
	}
	for _, status := range []string{"400", "401", "403", "429"} {
		r := deref(t, m, at(t, get, "responses", status))
		media := at(t, r, "content", "application/json").(map[string]any)
		if at(t, media, "schema", "$ref") != "#/components/schemas/Error" {
			t.Errorf("%s is not the error envelope: %v", status, media)
		}
	}
	if _, ok := at(t, get, "responses", "429", "headers").(map[string]any)["Retry-After"]; !ok {
		t.Error("429 lacks Retry-After")
	}
	if item := at(t, m, "paths", "/realtime").(map[string]any); item["head"] != nil || item["post"] != nil {
		t.Errorf("the stream is GET only: %v", item)
	}
}

func TestNoRealtimeTablesNoStreamPath(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileJSON(t, `{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`))
	if _, ok := at(t, m, "paths").(map[string]any)["/realtime"]; ok {
		t.Error("a project without realtime tables has no stream to describe")
	}
	for _, tag := range at(t, m, "tags").([]any) {
		if tag.(map[string]any)["name"] == "realtime" {
			t.Error("the realtime tag without a stream")
		}
	}
}

func TestPublicRealtimeTableStreamsWithoutCredential(t *testing.T) {
	t.Parallel()
	m := renderMap(t, compileJSON(t, `{"tables": [
		{"name": "news", "realtime": true, "permissions": {"read": "public"}, "columns": [{"name": "title", "type": "text"}]},
		{"name": "notes", "realtime": true, "columns": [{"name": "body", "type": "text"}]}]}`))
	list := at(t, m, "paths", "/realtime", "get", "security").([]any)
	if len(list) != 3 || len(list[0].(map[string]any)) != 0 {
		t.Errorf("a stream of a public table takes a credential optionally: %v", list)
	}
	enum := strs(at(t, m, "paths", "/realtime", "get", "parameters").([]any)[0].(map[string]any)["schema"].(map[string]any)["items"].(map[string]any)["enum"])
	if !reflect.DeepEqual(enum, []string{"news", "notes"}) {
		t.Errorf("tables enum %v", enum)
	}
}
