package schema

import (
	"sort"
	"strings"
)

// Compiled is a validated document in the form the request path uses:
// lookups by name, quoted identifiers and resolved relations, computed once
// per published version and never mutated afterwards.
type Compiled struct {
	Tables []*CTable
	byName map[string]*CTable
	// Auth is the table marked auth, or nil.
	Auth *CTable
}

// CTable is a compiled table.
type CTable struct {
	Name  string
	Doc   Table
	Ident string // quoted table name, without the schema
	// Columns lists every column in output order: id, user columns,
	// created_at, updated_at.
	Columns []*CColumn
	byName  map[string]*CColumn
	// Writable are the columns a request body may set.
	Writable []*CColumn
	// Inputs maps a body field name to its column (password for
	// password_hash).
	Inputs        map[string]*CColumn
	Relations     map[string]*Relation
	RelationNames []string
	Search        []*CColumn
	Permissions   Permissions
	Owner         *CColumn
	PK            *CColumn
	CreatedAt     *CColumn
	UpdatedAt     *CColumn
	hasFiles      bool
}

// CColumn is a compiled column.
type CColumn struct {
	Column
	// Kind is the column's registered type (an entry that knows no
	// traits for a name no entry has).
	Kind     *ColumnType
	Ident    string
	PGType   string
	System   bool
	ReadOnly bool
	// Hidden columns (passwords) are never returned.
	Hidden bool
	// Input is the field name a request body uses for this column.
	Input string
	// FileURL is a file column's URL path up to the record's id
	// ("<table>/", prefixed by SetAPIBase), and FilePK the column whose
	// value the id is: a record shows each file with its download URL.
	FileURL, FilePK string
}

// Relation connects two tables for include: rows of To whose ToCol equals
// the FromCol of a row of From. Many is true for one-to-many. A
// many-to-many relation goes through a junction table: rows of To whose
// ToCol (its key) some Through row holds in ThroughTo while its
// ThroughFrom holds the From row's FromCol (its key).
type Relation struct {
	Name    string
	Many    bool
	From    *CTable
	To      *CTable
	FromCol *CColumn
	ToCol   *CColumn

	Through     *CTable
	ThroughFrom *CColumn
	ThroughTo   *CColumn
}

// Table returns the compiled table of a name.
func (c *Compiled) Table(name string) (*CTable, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// HasFiles reports whether the table has a file or files column (set
// once in Compile: the writes ask it on every request).
func (t *CTable) HasFiles() bool { return t.hasFiles }

// Column returns the compiled column of a name.
func (t *CTable) Column(name string) (*CColumn, bool) {
	c, ok := t.byName[name]
	return c, ok
}

// Level returns the permission level of an operation (read, create,
// update, delete), defaulting to authenticated.
func (t *CTable) Level(op string) string {
	var l string
	switch op {
	case "read":
		l = t.Permissions.Read
	case "create":
		l = t.Permissions.Create
	case "update":
		l = t.Permissions.Update
	case "delete":
		l = t.Permissions.Delete
	}
	if l == "" {
		return LevelAuthenticated
	}
	return l
}

// Compile validates a document and compiles it.
func Compile(d Document) (*Compiled, error) {
	if p := Validate(d); len(p) > 0 {
		return nil, &InvalidError{Problems: p}
	}
	c := &Compiled{byName: map[string]*CTable{}}
	for i := range d.Tables {
		t := compileTable(d.Tables[i])
		c.Tables = append(c.Tables, t)
		c.byName[t.Name] = t
		if t.Doc.Auth {
			c.Auth = t
		}
	}
	for _, t := range c.Tables {
		for _, col := range t.Columns {
			if col.References == nil {
				continue
			}
			target := c.byName[col.References.Table]
			fwd := &Relation{Name: ForwardRelationName(col.Column), From: t, To: target, FromCol: col, ToCol: target.PK}
			rev := &Relation{Name: ReverseRelationName(t.Name, col.Column), Many: true, From: target, To: t, FromCol: target.PK, ToCol: col}
			t.Relations[fwd.Name] = fwd
			target.Relations[rev.Name] = rev
		}
	}
	for _, m := range manyToMany(d, relationNamesTaken(d), nil) {
		from, to, j := c.byName[m.Table], c.byName[m.Target], c.byName[m.Junction]
		from.Relations[m.Name] = &Relation{Name: m.Name, Many: true, From: from, To: to, FromCol: from.PK, ToCol: to.PK,
			Through: j, ThroughFrom: j.byName[m.Near], ThroughTo: j.byName[m.Far]}
	}
	for _, t := range c.Tables {
		for name := range t.Relations {
			t.RelationNames = append(t.RelationNames, name)
		}
		sort.Strings(t.RelationNames)
		if t.Doc.OwnerColumn != "" {
			t.Owner = t.byName[t.Doc.OwnerColumn]
		}
		for _, col := range t.Columns {
			if col.Kind.Traits.Upload && t.PK != nil {
				col.FileURL, col.FilePK = t.Name+"/", t.PK.Ident
				t.hasFiles = true
			}
		}
	}
	return c, nil
}

// SetAPIBase prefixes the download URLs of every file column with the
// project's API path ("/v1/<project>"), once, before the SQL is prepared.
func (c *Compiled) SetAPIBase(base string) {
	for _, t := range c.Tables {
		for _, col := range t.Columns {
			if col.FileURL != "" {
				col.FileURL = base + "/" + col.FileURL
			}
		}
	}
}

func compileTable(doc Table) *CTable {
	t := &CTable{
		Name: doc.Name, Doc: doc, Ident: QuoteIdent(doc.Name),
		byName: map[string]*CColumn{}, Inputs: map[string]*CColumn{}, Relations: map[string]*Relation{},
	}
	if doc.Permissions != nil {
		t.Permissions = *doc.Permissions
	}
	add := func(c *CColumn) {
		c.Ident = QuoteIdent(c.Name)
		t.Columns = append(t.Columns, c)
		t.byName[c.Name] = c
	}
	idType := TypeInteger
	if doc.IDType == IDUUID {
		idType = TypeUUID
	}
	ext := doc.External
	if ext == nil {
		t.PK = &CColumn{Column: Column{Name: ColID, Type: idType}, Kind: typeOf(idType), PGType: typeOf(idType).PG, System: true, ReadOnly: true}
		add(t.PK)
	}
	for _, col := range doc.Columns {
		kind := typeOf(col.Type)
		cc := &CColumn{Column: col, Kind: kind, PGType: kind.PG, Input: inputName(col)}
		if kind.Traits.ReadOnly {
			cc.PGType = col.PGType
			cc.ReadOnly = true
		}
		if kind.Traits.Secret {
			cc.Hidden = true
		}
		if kind.Traits.Enumerated && col.PGType != "" {
			// A fronted database's own enum type: filters cast to it.
			cc.PGType = col.PGType
		}
		if ext != nil && (col.Name == ext.PrimaryKey || col.Name == ColCreatedAt && ext.HasCreatedAt ||
			col.Name == ColUpdatedAt && ext.HasUpdatedAt) {
			// The key and the timestamps the service maintains are
			// read-only, as on managed tables.
			cc.System, cc.ReadOnly = true, true
			if col.Name == ext.PrimaryKey {
				t.PK = cc
			}
		}
		add(cc)
		if !cc.ReadOnly {
			t.Writable = append(t.Writable, cc)
			t.Inputs[cc.Input] = cc
		}
		if kind.Traits.Textual {
			t.Search = append(t.Search, cc)
		}
	}
	if ext == nil || ext.HasCreatedAt {
		t.CreatedAt = &CColumn{Column: Column{Name: ColCreatedAt, Type: TypeTimestamp}, Kind: timestampType, PGType: timestampType.PG, System: true, ReadOnly: true}
		if ext == nil {
			add(t.CreatedAt)
		} else {
			t.CreatedAt = t.byName[ColCreatedAt]
		}
	}
	if ext == nil || ext.HasUpdatedAt {
		t.UpdatedAt = &CColumn{Column: Column{Name: ColUpdatedAt, Type: TypeTimestamp}, Kind: timestampType, PGType: timestampType.PG, System: true, ReadOnly: true}
		if ext == nil {
			add(t.UpdatedAt)
		} else {
			t.UpdatedAt = t.byName[ColUpdatedAt]
		}
	}
	return t
}

// inputName is the body field a column takes: its name, or for a
// password column named x_hash, x (CONTRACT 5).
func inputName(c Column) string {
	if typeOf(c.Type).Traits.Secret {
		if n := strings.TrimSuffix(c.Name, "_hash"); n != c.Name && n != "" {
			return n
		}
	}
	return c.Name
}

// InvalidError carries the problems of a document that failed validation.
type InvalidError struct{ Problems Problems }

func (e *InvalidError) Error() string {
	keys := make([]string, 0, len(e.Problems))
	for k := range e.Problems {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("invalid schema:")
	for _, k := range keys {
		b.WriteString(" " + k + ": " + e.Problems[k] + ";")
	}
	return b.String()
}
