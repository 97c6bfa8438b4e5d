// Package translate turns requests against a published schema into SQL:
// per-table statements prepared once at publish, and list queries parsed
// from URL parameters, planned against the schema and rendered with bound
// parameters. Identifiers come only from the compiled schema.
package translate

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tablesmith/tablesmith/schema"
)

// Published is a compiled schema with the SQL of every table, computed
// once per published version and shared read-only by all requests.
type Published struct {
	Schema   string // unquoted PostgreSQL schema name
	Compiled *schema.Compiled
	Tables   map[string]*TableSQL
	// Cached is set when some table has a cache lifetime: only then are
	// writes announced to the edge caches (cachetables.go).
	Cached bool
}

// TableSQL is one table's prepared SQL.
type TableSQL struct {
	Table *schema.CTable
	// Rel is the quoted, schema-qualified table name.
	Rel string
	// Projection selects the output columns from alias t.
	Projection string
	// Get, Delete take the id as $1; the Owned variants add the owner id
	// as $2 (end users with owner permissions).
	Get, GetOwned       string
	Delete, DeleteOwned string
	// Lock and LockOwned are Get and GetOwned that also lock the row
	// until the transaction ends: a conditional write (If-Match) reads
	// the record it compares with, and nothing changes it before the
	// write.
	Lock, LockOwned string
	// outputPrefix wraps a data-modifying CTE named _w into one JSON record.
	outputPrefix string
	// CacheMaxAge is the table's shared-cache lifetime in seconds
	// (schema.Cache), 0 when its answers are not for shared caches.
	CacheMaxAge int
	// CacheControl is the Cache-Control value of its shared answers
	// ("public, max-age=N"), built once here rather than per request.
	CacheControl []string
	// inserts keeps the INSERT of each column set that was asked for
	// (insertKey → string), up to maxKeptInserts: a table's creates use
	// a few, and building the text is most of a create's own work.
	inserts    sync.Map
	insertsLen atomic.Int32
	// position is each column's index in Table.Columns.
	position map[*schema.CColumn]int
	// Changes are the tables a write to this one may change: itself, then
	// those its deletes reach through on_delete cascade or set_null
	// (sorted), whose cached answers a write purges (cachetables.go).
	Changes []string
}

// Prepare builds the SQL of every table of c in schema schemaName.
func Prepare(schemaName string, c *schema.Compiled) *Published {
	p := &Published{Schema: schemaName, Compiled: c, Tables: map[string]*TableSQL{}}
	for _, t := range c.Tables {
		p.Tables[t.Name] = prepareTable(schemaName, t)
	}
	p.noteCacheTables()
	return p
}

// Rel returns the qualified name of a table of this schema.
func (p *Published) Rel(t *schema.CTable) string { return p.Tables[t.Name].Rel }

func prepareTable(schemaName string, t *schema.CTable) *TableSQL {
	s := &TableSQL{Table: t, Rel: schema.QuoteIdent(schemaName) + "." + t.Ident, position: make(map[*schema.CColumn]int, len(t.Columns))}
	for i, c := range t.Columns {
		s.position[c] = i
	}
	s.Projection = Projection(t, "t")
	pk := "t." + t.PK.Ident
	one := func(from, where string) string {
		return "SELECT row_to_json(_r) FROM (SELECT " + s.Projection + " FROM " + from + " t WHERE " + where + ") _r"
	}
	s.Get = one(s.Rel, pk+" = $1")
	s.Lock = one(s.Rel, pk+" = $1 FOR UPDATE")
	s.Delete = "WITH _w AS (DELETE FROM " + s.Rel + " t WHERE " + pk + " = $1 RETURNING t.*) " + one("_w", "true")
	if t.Owner != nil {
		owned := " AND t." + t.Owner.Ident + " = $2"
		s.GetOwned = one(s.Rel, pk+" = $1"+owned)
		s.LockOwned = one(s.Rel, pk+" = $1"+owned+" FOR UPDATE")
		s.DeleteOwned = "WITH _w AS (DELETE FROM " + s.Rel + " t WHERE " + pk + " = $1" + owned + " RETURNING t.*) " + one("_w", "true")
	}
	s.outputPrefix = "SELECT row_to_json(_r) FROM (SELECT " + s.Projection + " FROM _w t) _r"
	return s
}

// Projection is the select list that renders a table's output columns
// from alias: timestamps as RFC 3339 UTC, hidden (password) columns left out.
func Projection(t *schema.CTable, alias string) string {
	var b strings.Builder
	first := true
	for _, c := range t.Columns {
		if c.Hidden {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(ColumnOutput(c, alias))
	}
	return b.String()
}

// ColumnOutput renders one output column from alias.
func ColumnOutput(c *schema.CColumn, alias string) string {
	if out, shown := c.Kind.OutputIn(c, alias); shown {
		return out + " AS " + c.Ident
	}
	return alias + "." + c.Ident
}

// outputAsStored reports whether a record shows the column's value as
// the table stores it; timestamps are written in the API's own format
// (the type's entry says which).
func outputAsStored(c *schema.CColumn) bool {
	_, shown := c.Kind.OutputIn(c, "")
	return !shown
}

// maxKeptInserts bounds the INSERT texts a table keeps: a client may send
// any subset of the optional columns.
const maxKeptInserts = 64

// insertKey is a column set: bit i for Table.Columns[i].
type insertKey [2]uint64

// Insert renders an INSERT of the given columns (values $1..$n) that
// returns the new record as JSON. With no columns every default applies.
// The text of a column set is kept after its first use.
func (s *TableSQL) Insert(cols []*schema.CColumn) string {
	key, ok := s.insertKey(cols)
	if ok {
		if text, hit := s.inserts.Load(key); hit {
			return text.(string)
		}
	}
	text := s.renderInsert(cols)
	if ok && s.insertsLen.Load() < maxKeptInserts {
		if _, loaded := s.inserts.LoadOrStore(key, text); !loaded {
			s.insertsLen.Add(1)
		}
	}
	return text
}

// insertKey is the key of a column set given in table order (as the
// validator gives them), false when there is none.
func (s *TableSQL) insertKey(cols []*schema.CColumn) (insertKey, bool) {
	var k insertKey
	last := -1
	for _, c := range cols {
		i, ok := s.position[c]
		if !ok || i <= last || i >= 128 {
			return k, false
		}
		last = i
		k[i/64] |= 1 << (i % 64)
	}
	return k, true
}

func (s *TableSQL) renderInsert(cols []*schema.CColumn) string {
	var b strings.Builder
	b.WriteString("WITH _w AS (INSERT INTO " + s.Rel)
	if len(cols) == 0 {
		b.WriteString(" DEFAULT VALUES")
	} else {
		b.WriteString(" (" + identList(cols) + ") VALUES (")
		for i := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("$" + strconv.Itoa(i+1))
		}
		b.WriteString(")")
	}
	b.WriteString(" RETURNING *) ")
	b.WriteString(s.outputPrefix)
	return b.String()
}

// Update renders an UPDATE of the given columns ($1..$n) of the row whose
// id is $n+1 (and, when owned, whose owner is $n+2), returning the record
// as JSON; setDefault columns are reset to their defaults (a full update
// that leaves them out). updated_at is set to now().
func (s *TableSQL) Update(cols, setDefault []*schema.CColumn, owned bool) string {
	var b strings.Builder
	b.WriteString("WITH _w AS (UPDATE " + s.Rel + " t SET ")
	n := 0
	sep := func() {
		if n > 0 {
			b.WriteString(", ")
		}
		n++
	}
	for i, c := range cols {
		sep()
		b.WriteString(c.Ident + " = $" + strconv.Itoa(i+1))
	}
	for _, c := range setDefault {
		sep()
		b.WriteString(c.Ident + " = DEFAULT")
	}
	if s.Table.UpdatedAt != nil {
		sep()
		b.WriteString(s.Table.UpdatedAt.Ident + " = now()")
	}
	if n == 0 { // nothing to change: a no-op update still returns the row
		b.WriteString(s.Table.PK.Ident + " = t." + s.Table.PK.Ident)
	}
	b.WriteString(" WHERE t." + s.Table.PK.Ident + " = $" + strconv.Itoa(len(cols)+1))
	if owned {
		b.WriteString(" AND t." + s.Table.Owner.Ident + " = $" + strconv.Itoa(len(cols)+2))
	}
	b.WriteString(" RETURNING t.*) ")
	b.WriteString(s.outputPrefix)
	return b.String()
}
