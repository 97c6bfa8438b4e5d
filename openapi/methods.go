package openapi

import (
	"sort"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
)

// headOperation describes HEAD on a path whose GET is get: the server
// answers it as the GET without a body, so it takes the same parameters
// and credentials and answers the same statuses and headers, with no
// content.
func headOperation(get *v3.Operation, operationID, what string) *v3.Operation {
	codes := orderedmap.New[string, *v3.Response]()
	for st := get.Responses.Codes.First(); st != nil; st = st.Next() {
		r := st.Value()
		desc := r.Description
		if r.Reference != "" {
			desc = "As the GET answers " + st.Key() + " (" + strings.TrimPrefix(r.Reference, "#/components/responses/") + "), without a body."
		}
		codes.Set(st.Key(), &v3.Response{Description: desc, Headers: r.Headers})
	}
	return &v3.Operation{Tags: get.Tags, OperationId: operationID, Summary: "Headers of " + what,
		Description: joinSentences("Answers as GET does, with the same status and headers and no body.", get.Description),
		Parameters:  get.Parameters, Security: get.Security, Responses: &v3.Responses{Codes: codes}}
}

// describeMethods adds HEAD to a table path and says which methods it
// takes: the others are answered 405, which OpenAPI cannot attach to an
// operation the path does not have, so the path's description says it.
func describeMethods(p *v3.PathItem, t *schema.CTable, headID, what string) {
	revalidated(p.Get)
	sharedByCaches(p.Get, t)
	p.Head = headOperation(p.Get, headID, what)
	var allowed []string
	for _, m := range []struct {
		name string
		op   *v3.Operation
	}{{"GET", p.Get}, {"HEAD", p.Head}, {"POST", p.Post}, {"PUT", p.Put}, {"PATCH", p.Patch}, {"DELETE", p.Delete}} {
		if m.op != nil {
			allowed = append(allowed, m.name)
		}
	}
	p.Description = joinSentences(p.Description, "Methods: "+strings.Join(allowed, ", ")+
		". Any other method is answered 405 METHOD_NOT_ALLOWED (the error envelope) with an Allow header naming the methods.")
}

// sharedByCaches describes the headers that let shared caches keep the
// anonymous reads of a table with a cache lifetime (docs/edge-cache.md)
// on its 200 and 304 answers.
func sharedByCaches(get *v3.Operation, t *schema.CTable) {
	if t.Doc.Cache == nil {
		return
	}
	maxAge := strconv.Itoa(t.Doc.Cache.MaxAge)
	text := func(desc string) *v3.Header {
		return &v3.Header{Description: desc, Schema: base.CreateSchemaProxy(&base.Schema{Type: types("string")})}
	}
	for _, code := range []string{"200", "304"} {
		r, ok := get.Responses.Codes.Get(code)
		if !ok {
			continue
		}
		if r.Headers == nil {
			r.Headers = orderedmap.New[string, *v3.Header]()
		}
		r.Headers.Set("Cache-Control", text("public, max-age="+maxAge+" on a read without a credential: shared caches (an edge Caddy, a CDN) "+
			"may answer it for "+maxAge+" s, and writes through the API purge it sooner. private, no-cache with a credential."))
		r.Headers.Set("Surrogate-Key", text("On a read without a credential: `ts_<project id>`, then `ts_<project id>_<table>` for each table the "+
			"answer reads (embedded and filtered-on tables too), separated by \", \"; a write to any of them purges the answer."))
		r.Headers.Set("Vary", text("Authorization (a cached answer is never handed to a request with a credential), with Accept-Encoding "+
			"and Origin when they apply."))
	}
	get.Description = joinSentences(get.Description, "Answers without a credential may come from a shared cache, up to "+maxAge+" s old "+
		"when a write bypassed the API")
}

// revalidated describes a read's ETag: the JSON 200 answer carries it,
// If-None-Match may send it back, and a match is answered 304 without a
// body.
func revalidated(get *v3.Operation) {
	codes := orderedmap.New[string, *v3.Response]()
	for st := get.Responses.Codes.First(); st != nil; st = st.Next() {
		codes.Set(st.Key(), st.Value())
		if st.Key() != "200" {
			continue
		}
		ok := st.Value()
		if ok.Headers == nil {
			ok.Headers = orderedmap.New[string, *v3.Header]()
		}
		ok.Headers.Set(headerETag, &v3.Header{Reference: "#/components/headers/" + headerETag})
		notModified := orderedmap.New[string, *v3.Header]()
		notModified.Set(headerETag, &v3.Header{Reference: "#/components/headers/" + headerETag})
		codes.Set("304", &v3.Response{Headers: notModified,
			Description: "Not modified: If-None-Match holds the answer's current ETag. No body; the request still counts."})
	}
	get.Responses.Codes = codes
	params := make([]*v3.Parameter, 0, len(get.Parameters)+1)
	params = append(params, get.Parameters...)
	get.Parameters = append(params, &v3.Parameter{Name: "If-None-Match", In: "header",
		Description: "ETags of answers the client holds; when one is current the answer is 304 without a body.",
		Schema:      base.CreateSchemaProxy(&base.Schema{Type: types("string")})})
}

// methodRank orders a path item's operations as the document lists them:
// the reads, then the writes from create to delete. libopenapi writes its
// own field order (GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH), and a
// collection runner follows the document (openapi-to-postmanv2 keeps
// each path's operations in their order), so a record was deleted before
// the runner read it with HEAD or changed it with PATCH.
var methodRank = map[string]int{"get": 1, "head": 2, "post": 3, "put": 4, "patch": 5, "delete": 6, "options": 7, "trace": 8}

// orderMethods puts the operations of every path item of the rendered
// document in methodRank's order, after the path item's other fields.
func orderMethods(root *yaml.Node) {
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	var paths *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "paths" {
			paths = root.Content[i+1]
		}
	}
	if paths == nil {
		return
	}
	for i := 1; i < len(paths.Content); i += 2 {
		item := paths.Content[i]
		if item.Kind != yaml.MappingNode {
			continue
		}
		pairs := make([][2]*yaml.Node, 0, len(item.Content)/2)
		for j := 0; j+1 < len(item.Content); j += 2 {
			pairs = append(pairs, [2]*yaml.Node{item.Content[j], item.Content[j+1]})
		}
		sort.SliceStable(pairs, func(a, b int) bool { return methodRank[pairs[a][0].Value] < methodRank[pairs[b][0].Value] })
		for j, p := range pairs {
			item.Content[2*j], item.Content[2*j+1] = p[0], p[1]
		}
	}
}
