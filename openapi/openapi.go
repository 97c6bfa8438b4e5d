// Package openapi describes a project's generated API as an OpenAPI 3.1
// document, built with libopenapi's high-level model from the compiled
// schema and rendered once per published version to JSON and YAML bytes
// that are served from memory.
package openapi

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
	"go.yaml.in/yaml/v4"

	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// Options say which project and version a document describes.
type Options struct {
	ProjectID string
	// Title is the document's title, the project's name ("" for
	// "Tablesmith API").
	Title string
	// Version is the published schema version (info.version).
	Version int
	// MaxPageSize is the largest limit the server takes (default
	// translate.MaxLimit).
	MaxPageSize int
	// MaxBulkRows is the most records one bulk create may hold (default
	// DefaultMaxBulkRows).
	MaxBulkRows int
}

func (o Options) title() string {
	if strings.TrimSpace(o.Title) == "" {
		return "Tablesmith API"
	}
	return o.Title
}

func (o Options) maxBulkRows() int {
	if o.MaxBulkRows < 1 {
		return DefaultMaxBulkRows
	}
	return o.MaxBulkRows
}

func (o Options) maxPageSize() int {
	if o.MaxPageSize < 1 {
		return translate.MaxLimit
	}
	return o.MaxPageSize
}

// BasePath is the path of a project's API relative to the site: the
// document's default server, and what a per-request server URL ends with.
func BasePath(projectID string) string { return "/v1/" + projectID }

// build assembles the document of compiled schema c.
// Per-column parts are placeholders of sp, which the writers replace.
func build(sp *splicer, c *schema.Compiled, o Options) *v3.Document {
	names := allocateNames(c)
	schemas := orderedmap.New[string, *base.SchemaProxy]()
	schemas.Set(schemaError, base.CreateSchemaProxy(errorSchema()))
	schemas.Set(schemaMeta, base.CreateSchemaProxy(metaSchema()))
	filterSchemas(schemas)
	collectionSchemas(schemas)
	if slices.ContainsFunc(c.Tables, (*schema.CTable).HasFiles) {
		schemas.Set(schema.FileSchemaName, base.CreateSchemaProxy(fileSchema()))
		uploadSchemas(schemas)
		signedURLSchemas(schemas)
	}
	paths := orderedmap.New[string, *v3.PathItem]()
	var tags []*base.Tag
	for _, t := range c.Tables {
		n := names[t.Name]
		// Each column is described once in the list item and once in the
		// PATCH body; the record and the other bodies refer to those and
		// add only their required lists, so the document grows by a
		// small constant per column.
		schemas.Set(n.Record, base.CreateSchemaProxy(recordSchema(t, n)))
		schemas.Set(n.Create, base.CreateSchemaProxy(requiredBody(t, n, modeCreate)))
		schemas.Set(n.Replace, base.CreateSchemaProxy(requiredBody(t, n, modeReplace)))
		schemas.Set(n.Update, base.CreateSchemaProxy(bodySchema(sp, t)))
		schemas.Set(n.ListItem, base.CreateSchemaProxy(listItemSchema(sp, t)))
		relationSchemas(schemas, t, names)
		schemas.Set(n.Response, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxyRef(schemaRef(n.Record)), false,
			"One "+t.Name+" record in the success envelope.")))
		schemas.Set(n.ListResp, base.CreateSchemaProxy(successSchema(base.CreateSchemaProxy(&base.Schema{Type: types("array"),
			Items: &base.DynamicValue[*base.SchemaProxy, bool]{A: base.CreateSchemaProxyRef(schemaRef(listRecord(t, n)))}}), true,
			"A page of "+t.Name+" records in the success envelope, with paging metadata.")))
		schemas.Set(n.BulkResp, base.CreateSchemaProxy(bulkResponseSchema(t, n)))
		tablePaths(sp, paths, c, t, n, o)
		desc := t.Doc.Description
		if desc == "" {
			desc = "Records of the " + t.Name + " table."
		}
		tags = append(tags, &base.Tag{Name: t.Name, Description: desc})
	}
	if c.Auth != nil {
		n := names[c.Auth.Name]
		authSchemas(schemas, n)
		authPaths(paths, c.Auth, n)
		authMailSchemas(schemas)
		authMailPaths(paths, c.Auth, n)
		providerSchemas(schemas)
		providerPaths(paths)
		tags = append(tags, &base.Tag{Name: authTag, Description: "End users of this project: register, sign in, refresh and sign out. " +
			"The access token works as the Bearer credential on the table operations."})
	}
	schemas.Set(schemaMessage, base.CreateSchemaProxy(messageSchema()))

	schemes := orderedmap.New[string, *v3.SecurityScheme]()
	schemes.Set(securityBearer, &v3.SecurityScheme{Type: "http", Scheme: "bearer", BearerFormat: "API key or JWT",
		Description: "API key or access token: a project API key (made in the dashboard; read or read_write scope) " +
			"or an end-user access token from /auth/register or /auth/login, sent as `Authorization: Bearer <credential>`."})
	if realtimePaths(paths, schemes, c) {
		tags = append(tags, &base.Tag{Name: realtimeTag, Description: "Live changes of the tables with realtime on, " +
			"over Server-Sent Events: one stream for all the tables a client watches."})
	}

	return &v3.Document{
		Version: "3.1.0",
		Info: &base.Info{Title: o.title(), Version: strconv.Itoa(o.Version),
			Summary:     "The generated REST API of a Tablesmith project.",
			Description: infoDescription(o)},
		Servers: []*v3.Server{{URL: BasePath(o.ProjectID), Description: "This project's API"}},
		Tags:    tags,
		Paths:   &v3.Paths{PathItems: paths},
		Components: &v3.Components{Schemas: schemas, Responses: sharedResponses(), Parameters: sharedParameters(o.maxPageSize()),
			Headers: sharedHeaders(), SecuritySchemes: schemes},
	}
}

func infoDescription(o Options) string {
	return "Schema version " + strconv.Itoa(o.Version) + " of project `" + o.ProjectID + "`, generated by Tablesmith.\n\n" +
		"**Credentials.** Send `Authorization: Bearer <credential>` with a project API key or an end-user access token. " +
		"Each operation says which permission level applies.\n\n" +
		"**Envelopes.** Every answer is JSON: `{\"success\": true, \"data\": ..., \"message\"?: ..., \"meta\"?: ...}` " +
		"or `{\"success\": false, \"error\": {\"code\", \"message\", \"details\"?}}`; `details` names each bad field.\n\n" +
		"**Records.** Timestamps are RFC 3339 in UTC; password fields are write-only; unknown body fields are refused " +
		"with 400 VALIDATION_ERROR; id, created_at and updated_at in a body are ignored.\n\n" +
		"**Rate limits.** Answers carry X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset; over the plan's " +
		"limit the answer is 429 RATE_LIMITED with Retry-After."
}

// renderMu serialises renders: libopenapi keeps process-wide caches, and
// one render at a time bounds the CPU that documentation can take.
var renderMu sync.Mutex

// newSentinel makes the text that stands in for the server URL while
// rendering, so the rendered bytes can be split around it once and a
// per-request server URL spliced in without rendering again. It is random
// so that no description written in the schema can contain it.
func newSentinel() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "tablesmith-server-" + hex.EncodeToString(b)
}

// Document is a project's description. Its JSON and YAML renderings are
// made on first use and kept in a Cache shared by all projects, which may
// drop them again; the server URL in them is replaced per request at the
// cost of three writes, never by rendering again.
type Document struct {
	compiled *schema.Compiled
	opts     Options
	basePath string
	cache    *Cache
}

// Rendered is one rendering (JSON or YAML) of a document, split at the
// server URL. It is immutable: a request keeps using the one it got even
// if the cache lets it go.
type Rendered struct {
	t    template
	etag string
}

// template is rendered bytes split at the server URL.
type template struct {
	head, tail []byte
	quote      bool // YAML: the URL is written as a double-quoted scalar
}

// New prepares the document of compiled schema c without rendering it,
// with a cache of its own.
func New(c *schema.Compiled, o Options) *Document {
	return NewIn(NewCache(1<<62), c, o)
}

// NewIn prepares the document of compiled schema c, whose renderings go
// into cache under the project, version and format: a version's
// document never changes. Rendering costs tens of milliseconds per table,
// too much to add to the request that loads a version.
func NewIn(cache *Cache, c *schema.Compiled, o Options) *Document {
	return &Document{compiled: c, opts: o, basePath: BasePath(o.ProjectID), cache: cache}
}

// Render builds and renders the document of compiled schema c now (JSON).
func Render(c *schema.Compiled, o Options) (*Document, error) {
	d := New(c, o)
	return d, d.Render()
}

// Render makes sure the JSON rendering can be made.
func (d *Document) Render() error {
	_, err := d.Rendered(false)
	return err
}

// Format is one rendering of a document: JSON or YAML, of OpenAPI 3.1 or
// of the 3.0 rendition (openapi30.go).
type Format struct {
	YAML bool
	V30  bool
}

// Rendered is the JSON (yaml false) or YAML rendering of OpenAPI 3.1.
func (d *Document) Rendered(yaml bool) (*Rendered, error) { return d.RenderedAs(Format{YAML: yaml}) }

// RenderedAs is the rendering in format f, from the cache or rendered
// now; concurrent callers share one render.
func (d *Document) RenderedAs(f Format) (*Rendered, error) {
	return d.cache.get(cacheKey(d.opts.ProjectID, d.opts.Version, d.opts.Title, f), func() (*Rendered, error) {
		return d.render(f)
	})
}

func (d *Document) render(f Format) (*Rendered, error) {
	sp := newSplicer()
	doc := build(sp, d.compiled, d.opts)
	sentinel := newSentinel()
	doc.Servers[0].URL = sentinel
	b, err := renderAs(doc, sp, f)
	if err != nil {
		return nil, fmt.Errorf("render openapi for %s: %w", d.opts.ProjectID, err)
	}
	t, err := split(b, sentinel, f.YAML)
	if err != nil {
		return nil, fmt.Errorf("render openapi for %s: %w", d.opts.ProjectID, err)
	}
	// The hash leaves the placeholder out: it is random per render, and
	// the same document must have the same ETag after a reload and on
	// every node.
	h := sha256.New()
	h.Write(t.head)
	h.Write(t.tail)
	return &Rendered{t: t, etag: hex.EncodeToString(h.Sum(nil)[:8])}, nil
}

// renderAs renders the model to a YAML node tree (libopenapi's
// NodeBuilder) and writes the tree as JSON or YAML with the per-column
// parts in place of their placeholders; the 3.0 rendition is rewritten
// from that tree on the way (to30).
func renderAs(doc *v3.Document, sp *splicer, f Format) ([]byte, error) {
	renderMu.Lock()
	defer renderMu.Unlock()
	tree, err := doc.MarshalYAML()
	if err != nil {
		return nil, err
	}
	node, ok := tree.(*yaml.Node)
	if !ok {
		return nil, fmt.Errorf("libopenapi rendered %T, not a YAML node", tree)
	}
	orderMethods(node)
	if f.V30 {
		to30(sp, node)
	}
	var buf bytes.Buffer
	if f.YAML {
		err = writeYAML(&buf, sp, node, 0, "")
	} else {
		// Compact: the JSON is for programs (YAML reads better), and
		// indentation was two fifths of a wide schema's document.
		err = writeJSON(&buf, sp, node, -1)
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func split(b []byte, sentinel string, quote bool) (template, error) {
	i := bytes.Index(b, []byte(sentinel))
	if i < 0 || bytes.Count(b, []byte(sentinel)) != 1 {
		return template{}, errors.New("server placeholder not found exactly once")
	}
	return template{head: b[:i:i], tail: b[i+len(sentinel):], quote: quote}, nil
}

// JSON is the document with the relative server URL /v1/<project_id>,
// rendering it if needed; nil when it cannot be rendered.
func (d *Document) JSON() []byte { return d.As(Format{}) }

// YAML is the document in YAML with the relative server URL.
func (d *Document) YAML() []byte { return d.As(Format{YAML: true}) }

// As is the document in format f with the relative server URL.
func (d *Document) As(f Format) []byte {
	r, err := d.RenderedAs(f)
	if err != nil {
		return nil
	}
	var b bytes.Buffer
	_ = r.t.write(&b, d.basePath)
	return b.Bytes()
}

// ETag identifies the JSON document's content apart from its server URL.
func (d *Document) ETag() string {
	r, err := d.Rendered(false)
	if err != nil {
		return ""
	}
	return r.etag
}

// BasePath is the relative server URL, /v1/<project_id>.
func (d *Document) BasePath() string { return d.basePath }

// ETag identifies the rendering's content apart from its server URL.
func (r *Rendered) ETag() string { return r.etag }

// Size is the length in bytes of the rendering written with serverURL,
// for Content-Length.
func (r *Rendered) Size(serverURL string) int {
	return len(r.t.head) + len(r.t.value(serverURL)) + len(r.t.tail)
}

// Write writes the rendering with serverURL as its server.
func (r *Rendered) Write(w io.Writer, serverURL string) error { return r.t.write(w, serverURL) }

// bytes is what the rendering holds in memory, for the cache's budget.
func (r *Rendered) bytes() int64 { return int64(len(r.t.head) + len(r.t.tail)) }

func (t template) value(u string) []byte {
	q, _ := json.Marshal(u) // a JSON string is also a YAML double-quoted scalar
	if t.quote {
		return q
	}
	return q[1 : len(q)-1]
}

func (t template) write(w io.Writer, u string) error {
	for _, part := range [][]byte{t.head, t.value(u), t.tail} {
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}
