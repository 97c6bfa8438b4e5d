// Package introspect reads an existing PostgreSQL schema (as catalog rows
// that internal/extdb reads) into a schema document, and reconciles a
// fronted project's documents with a later reading of its database. Like
// schema, it does no I/O.
package introspect

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// Catalog is what introspection reads from an existing database's system
// catalogs for one PostgreSQL schema: plain rows, read by a caller
// (internal/extdb), so this package stays free of I/O.
type Catalog struct {
	Schema      string
	Relations   []CatalogRelation
	Columns     []CatalogColumn
	Constraints []CatalogConstraint
	Indexes     []CatalogIndex
	// Enums maps a qualified enum type name ("shop"."status" as the
	// columns name it in EnumType) to its labels in sort order.
	Enums map[string][]string
}

// CatalogRelation is a table, view or similar relation of the schema.
type CatalogRelation struct {
	Name string
	// Kind is pg_class.relkind: r table, p partitioned table, v view,
	// m materialized view, f foreign table.
	Kind string
	// PartitionOf names the parent of a partition.
	PartitionOf string
	Comment     string
	// Privileges of the connecting role on the relation.
	CanSelect, CanInsert, CanUpdate, CanDelete bool
}

// CatalogColumn is one column of a relation.
type CatalogColumn struct {
	Table string
	Name  string
	// Type is the column's type as the database prints it (format_type).
	Type string
	// BaseType is pg_type.typname of the type, or of a domain's base type.
	BaseType string
	// TypeKind is pg_type.typtype of BaseType: b base, e enum, c
	// composite, r range, m multirange, p pseudo.
	TypeKind string
	// Category is pg_type.typcategory of BaseType (A for arrays).
	Category string
	// EnumType is the qualified, quoted name of an enum type.
	EnumType string
	// Length is the declared length of varchar(n) and char(n), else 0.
	Length  int
	NotNull bool
	// Default is the default expression as pg_get_expr prints it.
	Default string
	// Identity is a (GENERATED ALWAYS), d (BY DEFAULT) or "".
	Identity  string
	Generated bool
	Comment   string
}

// CatalogConstraint is a primary key, unique, check or foreign-key
// constraint.
type CatalogConstraint struct {
	Table string
	Name  string
	// Kind is pg_constraint.contype: p, u, c or f.
	Kind    string
	Columns []string
	// Definition is pg_get_constraintdef's text.
	Definition string
	RefSchema  string
	RefTable   string
	RefColumns []string
	// OnDelete is confdeltype: a no action, r restrict, c cascade,
	// n set null, d set default.
	OnDelete string
}

// CatalogIndex is an index of a table.
type CatalogIndex struct {
	Table string
	Name  string
	// Columns lists the key columns; "" stands for an expression.
	Columns []string
	Unique  bool
	Primary bool
	Partial bool
	Method  string
}

// Result is a database schema read into a schema document, with what
// could not be read and why.
type Result struct {
	Document schema.Document `json:"document"`
	// Unsupported lists relations left out of the API.
	Unsupported []UnsupportedTable `json:"unsupported"`
	// Notes say what was kept with a limitation (read-only columns,
	// constraints only the database enforces, relations not offered).
	Notes []Note `json:"notes"`
}

// UnsupportedTable is a relation of the database that the API leaves out.
type UnsupportedTable struct {
	Table string `json:"table"`
	// Kind is table, view, materialized_view, foreign_table or partition.
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// Note is a remark about one table or column.
type Note struct {
	Table  string `json:"table"`
	Column string `json:"column,omitempty"`
	Note   string `json:"note"`
}

// Kinds of relations, as UnsupportedTable reports them.
const (
	RelationTable            = "table"
	RelationView             = "view"
	RelationMaterializedView = "materialized_view"
	RelationForeignTable     = "foreign_table"
	RelationPartition        = "partition"
)

// Read builds the schema document of the supported tables of a catalog:
// every table with a single-column integer or uuid primary key and a name
// the API can use, with its columns mapped to column types (unmodeled
// types become read-only passthrough columns), constraints that have an
// equivalent, and foreign keys between supported tables as relations. The
// document is valid: whatever would make it invalid is left out and
// reported instead.
func Read(cat Catalog) Result {
	in := &introspector{cat: cat, res: Result{Document: schema.Document{Tables: []schema.Table{}},
		Unsupported: []UnsupportedTable{}, Notes: []Note{}}}
	in.index()
	rels := append([]CatalogRelation(nil), cat.Relations...)
	sort.Slice(rels, func(i, j int) bool { return rels[i].Name < rels[j].Name })
	for _, r := range rels {
		in.relation(r)
	}
	in.foreignKeys()
	nameRelations(&in.res.Document)
	in.repair()
	return in.res
}

type introspector struct {
	cat         Catalog
	res         Result
	columns     map[string][]CatalogColumn
	constraints map[string][]CatalogConstraint
	indexes     map[string][]CatalogIndex
	// fks are the foreign keys of supported tables, resolved after every
	// table is known.
	fks []CatalogConstraint
}

func (in *introspector) index() {
	in.columns = map[string][]CatalogColumn{}
	in.constraints = map[string][]CatalogConstraint{}
	in.indexes = map[string][]CatalogIndex{}
	for _, c := range in.cat.Columns {
		in.columns[c.Table] = append(in.columns[c.Table], c)
	}
	for _, c := range in.cat.Constraints {
		in.constraints[c.Table] = append(in.constraints[c.Table], c)
	}
	for _, ix := range in.cat.Indexes {
		in.indexes[ix.Table] = append(in.indexes[ix.Table], ix)
	}
}

func (in *introspector) unsupported(table, kind, reason string) {
	in.res.Unsupported = append(in.res.Unsupported, UnsupportedTable{Table: table, Kind: kind, Reason: reason})
}

func (in *introspector) note(table, column, format string, args ...any) {
	in.res.Notes = append(in.res.Notes, Note{Table: table, Column: column, Note: fmt.Sprintf(format, args...)})
}

// relation turns one relation into a table of the document, or reports
// why it cannot be one.
func (in *introspector) relation(r CatalogRelation) {
	if kind, reason := relationRefusal(r); reason != "" {
		in.unsupported(r.Name, kind, reason)
		return
	}
	cols := in.columns[r.Name]
	pkCol, idType, ok := in.primaryKey(r, cols)
	if !ok {
		return
	}
	t := schema.Table{Name: r.Name, IDType: idType, Description: r.Comment, Columns: []schema.Column{},
		External: &schema.ExternalTable{PrimaryKey: pkCol.Name}}
	t.Columns = in.tableColumns(r.Name, cols, pkCol.Name, idType)
	in.constrain(&t)
	in.timestamps(&t, cols)
	in.notePrivileges(r)
	for _, c := range in.constraints[r.Name] {
		if c.Kind == "f" {
			in.fks = append(in.fks, c)
		}
	}
	in.res.Document.Tables = append(in.res.Document.Tables, t)
}

// relationRefusal says what kind of relation r is and why it cannot be a
// table of the API, before its key is looked at; the reason is "" when it
// can be one.
func relationRefusal(r CatalogRelation) (kind, reason string) {
	switch {
	case r.Kind == "v":
		return RelationView, "views are not served by the API yet; query the tables behind it"
	case r.Kind == "m":
		return RelationMaterializedView, "materialized views are not served by the API"
	case r.Kind == "f":
		return RelationForeignTable, "foreign tables are not served by the API"
	case r.PartitionOf != "":
		return RelationPartition, fmt.Sprintf("a partition of %s; its rows are reached through %s", r.PartitionOf, r.PartitionOf)
	case r.Kind != "r" && r.Kind != "p":
		return RelationTable, "this kind of relation is not served by the API"
	case !schema.ValidName(r.Name):
		return RelationTable, "its name cannot be an API path (names use a-z, 0-9 and _, start with a letter, at most 63 characters)"
	case schema.ReservedTableName(r.Name):
		return RelationTable, fmt.Sprintf("%q is a reserved path of the generated API", r.Name)
	case !r.CanSelect:
		return RelationTable, "the connection's role has no SELECT privilege on it"
	}
	return "", ""
}

// primaryKey finds the single-column integer or uuid key the API
// addresses r's records by, and its id type; without one it reports r as
// unsupported and answers false.
func (in *introspector) primaryKey(r CatalogRelation, cols []CatalogColumn) (*CatalogColumn, string, bool) {
	var pk *CatalogConstraint
	for i, c := range in.constraints[r.Name] {
		if c.Kind == "p" {
			pk = &in.constraints[r.Name][i]
		}
	}
	if pk == nil {
		in.unsupported(r.Name, RelationTable, "it has no primary key; the API addresses records by a single-column integer, bigint or uuid key")
		return nil, "", false
	}
	if len(pk.Columns) != 1 {
		in.unsupported(r.Name, RelationTable, fmt.Sprintf("its primary key is composite (%s); the API addresses records by a single-column integer, bigint or uuid key",
			strings.Join(pk.Columns, ", ")))
		return nil, "", false
	}
	var pkCol *CatalogColumn
	for i := range cols {
		if cols[i].Name == pk.Columns[0] {
			pkCol = &cols[i]
		}
	}
	if pkCol == nil {
		in.unsupported(r.Name, RelationTable, "its primary key column could not be read")
		return nil, "", false
	}
	idType := ""
	switch {
	case isIntegerType(pkCol.BaseType):
	case pkCol.BaseType == "uuid":
		idType = schema.IDUUID
	default:
		in.unsupported(r.Name, RelationTable, fmt.Sprintf("its primary key %s has type %s; supported key types are integer, bigint and uuid", pkCol.Name, pkCol.Type))
		return nil, "", false
	}
	if !schema.ValidName(pkCol.Name) {
		in.unsupported(r.Name, RelationTable, fmt.Sprintf("its primary key column %q has a name the API cannot use", pkCol.Name))
		return nil, "", false
	}
	return pkCol, idType, true
}

// tableColumns maps the table's columns to document columns, the key
// first where it stands, leaving out (with a note) those whose names the
// API cannot use.
func (in *introspector) tableColumns(table string, cols []CatalogColumn, pkName, idType string) []schema.Column {
	out := []schema.Column{}
	for _, c := range cols {
		if c.Name == pkName {
			out = append(out, schema.Column{Name: c.Name, Type: keyType(idType), Description: c.Comment})
			if c.Default == "" && c.Identity == "" {
				in.note(table, c.Name, "the primary key has no default, so creating records through the API fails; the database must assign keys (serial, identity or a uuid default)")
			}
			continue
		}
		if !schema.ValidName(c.Name) {
			msg := "left out of the API: its name cannot be a JSON field of the API (names use a-z, 0-9 and _)"
			if c.NotNull && c.Default == "" && c.Identity == "" && !c.Generated {
				msg += "; it is required and has no default, so creating records through the API fails"
			}
			in.note(table, c.Name, "%s", msg)
			continue
		}
		out = append(out, in.column(table, c))
	}
	return out
}

// notePrivileges notes the writes the connection's role may not make on r.
func (in *introspector) notePrivileges(r CatalogRelation) {
	if r.CanInsert && r.CanUpdate && r.CanDelete {
		return
	}
	var missing []string
	for _, p := range []struct {
		ok   bool
		name string
	}{{r.CanInsert, "INSERT"}, {r.CanUpdate, "UPDATE"}, {r.CanDelete, "DELETE"}} {
		if !p.ok {
			missing = append(missing, p.name)
		}
	}
	in.note(r.Name, "", "the connection's role lacks %s on this table; those writes are refused by the database", strings.Join(missing, ", "))
}

func keyType(idType string) string {
	if idType == schema.IDUUID {
		return schema.TypeUUID
	}
	return schema.TypeInteger
}

func isIntegerType(base string) bool { return base == "int2" || base == "int4" || base == "int8" }

// column maps one database column to a document column.
func (in *introspector) column(table string, c CatalogColumn) schema.Column {
	col := schema.Column{Name: c.Name, Description: c.Comment}
	passthrough := func(why string) schema.Column {
		col.Type, col.PGType, col.Required = schema.TypePassthrough, c.Type, c.NotNull
		in.note(table, c.Name, "%s, so it is read-only in the API and never changed by generate", why)
		if c.NotNull && c.Default == "" && c.Identity == "" && !c.Generated {
			in.note(table, c.Name, "it is required and has no default, so creating records through the API fails")
		}
		return col
	}
	switch {
	case c.Generated:
		return passthrough("the database computes its value")
	case c.Identity == "a":
		return passthrough("it is an identity column the database always assigns")
	case c.TypeKind == "e":
		col.Type, col.PGType = schema.TypeEnum, c.EnumType
		col.Values = append([]string(nil), in.cat.Enums[c.EnumType]...)
		if len(col.Values) == 0 {
			return passthrough(fmt.Sprintf("its enum type %s has no values", c.Type))
		}
	case c.Category == "A":
		return passthrough(fmt.Sprintf("type %s is not modeled", c.Type))
	default:
		col.Type = columnTypeOf(c.BaseType)
		if col.Type == "" {
			return passthrough(fmt.Sprintf("type %s is not modeled", c.Type))
		}
		if c.Length > 0 && col.Type == schema.TypeText {
			col.MaxLength = intPtr(c.Length)
		}
	}
	if c.Default != "" || c.Identity != "" {
		if v, ok := defaultValue(c.Default, col); ok {
			col.Default = v
		}
	}
	// A required column with a default the document cannot state is shown
	// optional: the database fills it in when a record leaves it out.
	col.Required = c.NotNull && (len(col.Default) > 0 || (c.Default == "" && c.Identity == ""))
	return col
}

// columnTypeOf maps a PostgreSQL base type name to a column type, or ""
// when the type is not modeled: the registry entry that fronts it.
func columnTypeOf(base string) string { return frontedTypes[base] }

// frontedTypes maps each PostgreSQL base type a registered column type
// fronts (ColumnType.Fronts) to that type.
var frontedTypes = func() map[string]string {
	m := map[string]string{}
	for _, t := range schema.ColumnTypes() {
		for _, pg := range t.Fronts {
			m[pg] = t.Name
		}
	}
	return m
}()

// constrain applies unique constraints, single-column indexes and the
// check constraints that have an equivalent in the document.
func (in *introspector) constrain(t *schema.Table) {
	colIndex := map[string]int{}
	for i, c := range t.Columns {
		colIndex[c.Name] = i
	}
	at := func(name string) *schema.Column {
		if i, ok := colIndex[name]; ok && name != t.External.PrimaryKey {
			return &t.Columns[i]
		}
		return nil
	}
	for _, c := range in.constraints[t.Name] {
		switch c.Kind {
		case "u":
			if len(c.Columns) == 1 {
				if col := at(c.Columns[0]); col != nil && canBeUnique(col) {
					col.Unique = true
				}
			}
		case "c":
			if len(c.Columns) != 1 || at(c.Columns[0]) == nil {
				in.note(t.Name, "", "check constraint %s is enforced by the database only", c.Name)
				continue
			}
			col := at(c.Columns[0])
			if col.Type == schema.TypePassthrough || !applyCheck(col, c.Definition) {
				in.note(t.Name, col.Name, "check constraint %s is enforced by the database only", c.Name)
			}
		}
	}
	for _, ix := range in.indexes[t.Name] {
		if ix.Primary || ix.Partial || len(ix.Columns) != 1 || ix.Columns[0] == "" || ix.Method != "btree" {
			continue
		}
		col := at(ix.Columns[0])
		switch {
		case col == nil || col.Type == schema.TypePassthrough:
		case ix.Unique && canBeUnique(col):
			col.Unique = true
		case !ix.Unique && !col.Unique:
			col.Index = true
		}
	}
}

// canBeUnique reports whether the document lets the column be unique; a
// passthrough column says what the database enforces.
func canBeUnique(c *schema.Column) bool {
	t, ok := schema.TypeOf(c.Type)
	return ok && (t.Traits.Unique || t.Traits.ReadOnly)
}

// timestamps marks created_at and updated_at as the table's own
// timestamps when the API can maintain them: of a timestamp type, and
// filled in by the database on insert when required.
func (in *introspector) timestamps(t *schema.Table, cols []CatalogColumn) {
	for _, c := range cols {
		if c.Name != schema.ColCreatedAt && c.Name != schema.ColUpdatedAt {
			continue
		}
		col, ok := t.Column(c.Name)
		if !ok || col.Type != schema.TypeTimestamp || (c.NotNull && c.Default == "") {
			continue
		}
		if c.Name == schema.ColCreatedAt {
			t.External.HasCreatedAt = true
		} else {
			t.External.HasUpdatedAt = true
		}
	}
}

// foreignKeys turns foreign keys between supported tables of the schema
// into references, and notes the others.
func (in *introspector) foreignKeys() {
	doc := &in.res.Document
	for _, fk := range in.fks {
		ti := tableIndex(*doc, fk.Table)
		if ti < 0 || len(fk.Columns) != 1 {
			if ti >= 0 {
				in.note(fk.Table, "", "foreign key %s spans several columns; the database enforces it, the API offers no relation for it", fk.Name)
			}
			continue
		}
		t := &doc.Tables[ti]
		ci := columnIndex(*t, fk.Columns[0])
		if ci < 0 {
			continue
		}
		col := &t.Columns[ci]
		target, ok := doc.Table(fk.RefTable)
		switch {
		case fk.RefSchema != in.cat.Schema:
			in.note(t.Name, col.Name, "it references %s.%s in another schema; the database enforces it, the API offers no relation for it", fk.RefSchema, fk.RefTable)
			continue
		case !ok:
			in.note(t.Name, col.Name, "it references %s, which the API does not serve; the database enforces it, the API offers no relation for it", fk.RefTable)
			continue
		case len(fk.RefColumns) != 1 || fk.RefColumns[0] != target.External.PrimaryKey:
			in.note(t.Name, col.Name, "it references %s by a column other than its primary key; the database enforces it, the API offers no relation for it", fk.RefTable)
			continue
		case col.Type != keyType(target.IDType):
			in.note(t.Name, col.Name, "its type does not match the primary key of %s; the database enforces the foreign key, the API offers no relation for it", fk.RefTable)
			continue
		}
		ref := &schema.Reference{Table: fk.RefTable}
		switch fk.OnDelete {
		case "c":
			ref.OnDelete = schema.OnDeleteCascade
		case "n":
			ref.OnDelete = schema.OnDeleteSetNull
			if col.Required {
				ref.OnDelete = ""
			}
		case "d":
			in.note(t.Name, col.Name, "its foreign key sets the default on delete; the document shows restrict, the database keeps its rule")
		}
		col.References = ref
	}
}

func tableIndex(d schema.Document, name string) int {
	for i, t := range d.Tables {
		if t.Name == name {
			return i
		}
	}
	return -1
}

func columnIndex(t schema.Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// nameRelations gives every reference relation names that clash with no
// column and no other relation of the same table, keeping names already
// set and the default names (CONTRACT 4.2) wherever they are free.
func nameRelations(d *schema.Document) {
	used := map[string]map[string]bool{}
	for _, t := range d.Tables {
		u := map[string]bool{schema.ColID: true, schema.ColCreatedAt: true, schema.ColUpdatedAt: true}
		for _, c := range t.Columns {
			u[c.Name] = true
		}
		used[t.Name] = u
	}
	pick := func(table string, candidates ...string) string {
		for _, n := range candidates {
			if schema.ValidName(n) && !used[table][n] {
				used[table][n] = true
				return n
			}
		}
		return ""
	}
	for ti := range d.Tables {
		t := &d.Tables[ti]
		for ci := range t.Columns {
			c := &t.Columns[ci]
			if c.References == nil || used[c.References.Table] == nil {
				continue
			}
			kept := c.Relation
			c.Relation = ""
			def := schema.ForwardRelationName(*c)
			n := pick(t.Name, kept, def, def+"_ref", c.Name+"_ref")
			if n == "" {
				c.References = nil
				continue
			}
			if n != def {
				c.Relation = n
			}
		}
	}
	for ti := range d.Tables {
		t := &d.Tables[ti]
		for ci := range t.Columns {
			c := &t.Columns[ci]
			if c.References == nil {
				continue
			}
			kept := c.ReverseRelation
			c.ReverseRelation = ""
			base := strings.TrimSuffix(c.Name, "_id")
			n := pick(c.References.Table, kept, t.Name, t.Name+"_by_"+base, t.Name+"_by_"+c.Name)
			if n == "" {
				c.References, c.Relation = nil, ""
				continue
			}
			if n != t.Name {
				c.ReverseRelation = n
			}
		}
	}
}

// repair validates the document and takes out whatever still makes it
// invalid (a default or bound the validators reject, a relation that
// cannot be named), noting each, so the result can always be published.
func (in *introspector) repair() {
	doc := &in.res.Document
	if len(doc.Tables) > schema.MaxTables {
		for _, t := range doc.Tables[schema.MaxTables:] {
			in.unsupported(t.Name, RelationTable, fmt.Sprintf("a project serves at most %d tables", schema.MaxTables))
		}
		doc.Tables = doc.Tables[:schema.MaxTables]
	}
	for i := range doc.Tables {
		if t := &doc.Tables[i]; len(t.Columns) > schema.MaxColumns {
			in.note(t.Name, "", "only the first %d columns are served", schema.MaxColumns)
			t.Columns = t.Columns[:schema.MaxColumns]
		}
	}
	for round := 0; round < 8; round++ {
		problems := schema.Validate(*doc)
		if len(problems) == 0 {
			return
		}
		drop := map[int]string{}
		paths := make([]string, 0, len(problems))
		for p := range problems {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			ti, ci, field, ok := parseProblemPath(p)
			if !ok || ti >= len(doc.Tables) {
				continue
			}
			t := &doc.Tables[ti]
			if ci < 0 || ci >= len(t.Columns) {
				drop[ti] = problems[p]
				continue
			}
			in.repairColumn(t, &t.Columns[ci], field, problems[p])
		}
		keep := doc.Tables[:0]
		for i, t := range doc.Tables {
			if msg, bad := drop[i]; bad {
				in.unsupported(t.Name, RelationTable, "it cannot be described by a schema document: "+msg)
				continue
			}
			keep = append(keep, t)
		}
		doc.Tables = keep
		nameRelations(doc)
	}
}

func (in *introspector) repairColumn(t *schema.Table, c *schema.Column, field, msg string) {
	switch {
	case field == "default":
		c.Default = nil
		c.Required = false
		in.note(t.Name, c.Name, "its default is applied by the database only (%s)", msg)
	case strings.HasPrefix(field, "references"), field == "relation", field == "reverse_relation",
		field == "type" && c.References != nil:
		c.References, c.Relation, c.ReverseRelation = nil, "", ""
		in.note(t.Name, c.Name, "the database enforces its foreign key, the API offers no relation for it (%s)", msg)
	case field == "min" || field == "max":
		c.Min, c.Max = nil, nil
		in.note(t.Name, c.Name, "its bounds are enforced by the database only")
	case field == "min_length" || field == "max_length":
		c.MinLength, c.MaxLength = nil, nil
		in.note(t.Name, c.Name, "its length limits are enforced by the database only")
	case field == "unique":
		c.Unique = false
	case field == "searchable":
		c.Searchable = false
	case field == "html":
		c.HTML = false
	default:
		pg := c.PGType
		if pg == "" {
			pg = schema.PostgresType(c.Type)
		}
		*c = schema.Column{Name: c.Name, Type: schema.TypePassthrough, PGType: pg, Required: c.Required, Description: c.Description}
		in.note(t.Name, c.Name, "it is read-only in the API (%s)", msg)
	}
}

// parseProblemPath splits "tables[3].columns[1].references.table" into
// 3, 1, "references.table"; ci is -1 for a problem of the table itself.
func parseProblemPath(p string) (ti, ci int, field string, ok bool) {
	rest, found := strings.CutPrefix(p, "tables[")
	if !found {
		return 0, 0, "", false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return 0, 0, "", false
	}
	ti, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0, 0, "", false
	}
	rest = rest[end+1:]
	if col, found := strings.CutPrefix(rest, ".columns["); found {
		end = strings.IndexByte(col, ']')
		if end < 0 {
			return 0, 0, "", false
		}
		ci, err = strconv.Atoi(col[:end])
		if err != nil {
			return 0, 0, "", false
		}
		return ti, ci, strings.TrimPrefix(col[end+1:], "."), true
	}
	return ti, -1, strings.TrimPrefix(rest, "."), true
}

func intPtr(n int) *int { return &n }

func floatPtr(f float64) *float64 { return &f }

// defaultValue turns a default expression into the document's default
// when it is a constant the validators can check (or the current time),
// reporting false for expressions only the database can evaluate
// (sequences, functions).
func defaultValue(expr string, c schema.Column) (json.RawMessage, bool) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, false
	}
	var v any
	switch c.Type {
	case schema.TypeTimestamp:
		switch strings.ToLower(expr) {
		case "now()", "current_timestamp", "statement_timestamp()", "transaction_timestamp()", "localtimestamp":
			return json.RawMessage(`"now"`), true
		}
		return nil, false
	case schema.TypeDate:
		if strings.EqualFold(expr, "CURRENT_DATE") {
			return json.RawMessage(`"now"`), true
		}
		s, ok := stringLiteral(expr)
		if !ok {
			return nil, false
		}
		v = s
	case schema.TypeBoolean:
		switch expr {
		case "true":
			v = true
		case "false":
			v = false
		default:
			return nil, false
		}
	case schema.TypeInteger, schema.TypeNumber, schema.TypeDecimal:
		f, text, ok := numberLiteral(expr)
		if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, false
		}
		v = json.Number(text)
	case schema.TypeText, schema.TypeEnum, schema.TypeUUID:
		s, ok := stringLiteral(expr)
		if !ok {
			return nil, false
		}
		v = s
	case schema.TypeJSON:
		s, ok := stringLiteral(expr)
		if !ok || !json.Valid([]byte(s)) {
			return nil, false
		}
		return json.RawMessage(s), true
	default:
		return nil, false
	}
	if _, msg := schema.CheckValue(&c, v); msg != "" {
		return nil, false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return raw, true
}

// stripCast removes one trailing ::type cast (a type name may be quoted,
// qualified, have spaces and a [] suffix).
func stripCast(s string) string {
	cut := -1
	scanTop(s, func(i, depth int) bool {
		if s[i] == ':' && depth == 0 && i+1 < len(s) && s[i+1] == ':' && isTypeName(s[i+2:]) {
			cut = i
			return false
		}
		return true
	})
	if cut < 0 {
		return s
	}
	return strings.TrimSpace(s[:cut])
}

// scanTop calls f for each byte of s outside quotes with the nesting depth
// of parentheses and brackets after that byte; f returns false to stop.
// It returns the depth at the end.
func scanTop(s string, f func(i, depth int) bool) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
			continue
		case ch == '\'' || ch == '"':
			quote = ch
			continue
		case ch == '(' || ch == '[':
			depth++
		case ch == ')' || ch == ']':
			depth--
		}
		if !f(i, depth) {
			break
		}
	}
	return depth
}

// isTypeName reports whether s can be the type of a cast as PostgreSQL
// prints it: lower-case words, digits, qualification, a length or
// precision, an array suffix, and anything inside double quotes.
func isTypeName(s string) bool {
	if s == "" {
		return false
	}
	quoted := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '"':
			quoted = !quoted
		case quoted:
		case ch >= 'a' && ch <= 'z', ch >= '0' && ch <= '9', strings.IndexByte("_ .,[]()", ch) >= 0:
		default:
			return false
		}
	}
	return !quoted
}

// unwrap strips casts and the parentheses that enclose a whole
// expression, repeatedly.
func unwrap(s string) string {
	for {
		s = strings.TrimSpace(s)
		n := stripCast(s)
		if enclosed(n) {
			n = n[1 : len(n)-1]
		}
		if n == s {
			return s
		}
		s = n
	}
}

// enclosed reports whether s is one parenthesized expression.
func enclosed(s string) bool {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return false
	}
	closedEarly := false
	end := scanTop(s, func(i, depth int) bool {
		if s[i] == ')' && depth == 0 && i != len(s)-1 {
			closedEarly = true
			return false
		}
		return true
	})
	return !closedEarly && end == 0
}

// stringLiteral reads a quoted literal (a quote inside is doubled), cast
// or not.
func stringLiteral(expr string) (string, bool) {
	s := unwrap(expr)
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	body := s[1 : len(s)-1]
	if strings.Contains(strings.ReplaceAll(body, "''", ""), "'") {
		return "", false
	}
	return strings.ReplaceAll(body, "''", "'"), true
}

// numberLiteral reads 12, -1.5, (-3) or '7'::integer.
func numberLiteral(expr string) (float64, string, bool) {
	s := unwrap(expr)
	if lit, ok := stringLiteral(s); ok {
		s = lit
	}
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "eExXpPnN_ ") {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, "", false
	}
	return f, s, true
}

// splitTop splits s at sep where sep stands outside parentheses, brackets
// and quotes.
func splitTop(s, sep string) []string {
	var out []string
	start := 0
	scanTop(s, func(i, depth int) bool {
		if depth == 0 && i >= start && strings.HasPrefix(s[i:], sep) {
			out = append(out, s[start:i])
			start = i + len(sep)
		}
		return true
	})
	return append(out, s[start:])
}

// applyCheck reads a single-column check constraint into the column's
// bounds, lengths or enum values, reporting whether every part of it was
// understood. Parts that are understood apply even when others are not:
// the database enforces the whole check anyway.
func applyCheck(c *schema.Column, def string) bool {
	body, ok := strings.CutPrefix(strings.TrimSuffix(strings.TrimSpace(def), " NOT VALID"), "CHECK ")
	if !ok {
		return false
	}
	all := true
	for _, part := range splitTop(unwrap(body), " AND ") {
		if !applyCheckPart(c, unwrap(part)) {
			all = false
		}
	}
	return all
}

var checkOps = []string{" >= ", " <= ", " <> ", " = ", " > ", " < "}

func applyCheckPart(c *schema.Column, part string) bool {
	var lhs, op, rhs string
	for _, o := range checkOps {
		if pieces := splitTop(part, o); len(pieces) == 2 {
			lhs, op, rhs = unwrap(pieces[0]), strings.TrimSpace(o), strings.TrimSpace(pieces[1])
			break
		}
	}
	if op == "" {
		return false
	}
	if isColumnRef(lhs, c.Name) {
		if op == "=" && strings.HasPrefix(rhs, "ANY ") {
			return applyInList(c, strings.TrimPrefix(rhs, "ANY "))
		}
		f, _, ok := numberLiteral(rhs)
		if !ok {
			return false
		}
		switch c.Type {
		case schema.TypeInteger, schema.TypeNumber, schema.TypeDecimal:
			return applyBound(c, op, f)
		}
		return false
	}
	if arg, ok := lengthOf(lhs); ok && isColumnRef(arg, c.Name) && c.Type == schema.TypeText {
		f, _, ok := numberLiteral(rhs)
		if !ok || f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
			return false
		}
		return applyLength(c, op, int(f))
	}
	return false
}

// isColumnRef reports whether s names the column: name, "name", or
// either cast (the cast was stripped by unwrap).
func isColumnRef(s, name string) bool {
	s = unwrap(s)
	return s == name || s == `"`+name+`"`
}

func lengthOf(s string) (string, bool) {
	for _, fn := range []string{"char_length(", "character_length(", "length("} {
		if strings.HasPrefix(s, fn) && strings.HasSuffix(s, ")") && enclosed(s[len(fn)-1:]) {
			return s[len(fn) : len(s)-1], true
		}
	}
	return "", false
}

func applyBound(c *schema.Column, op string, f float64) bool {
	integral := c.Type == schema.TypeInteger
	switch op {
	case ">=":
	case "<=":
	case ">", "<":
		if !integral || f != math.Trunc(f) {
			return false
		}
		if op == ">" {
			f, op = f+1, ">="
		} else {
			f, op = f-1, "<="
		}
	default:
		return false
	}
	if op == ">=" {
		if c.Min == nil || f > *c.Min {
			c.Min = floatPtr(f)
		}
	} else if c.Max == nil || f < *c.Max {
		c.Max = floatPtr(f)
	}
	return true
}

func applyLength(c *schema.Column, op string, n int) bool {
	switch op {
	case ">":
		n, op = n+1, ">="
	case "<":
		n, op = n-1, "<="
	}
	switch op {
	case ">=":
		if c.MinLength == nil || n > *c.MinLength {
			c.MinLength = intPtr(n)
		}
	case "<=":
		if n < 1 {
			return false
		}
		if c.MaxLength == nil || n < *c.MaxLength {
			c.MaxLength = intPtr(n)
		}
	default:
		return false
	}
	return true
}

// applyInList reads (ARRAY['a'::text, 'b'::text]) into enum values.
func applyInList(c *schema.Column, rhs string) bool {
	if c.Type != schema.TypeText {
		return false
	}
	arr := unwrap(rhs)
	inner, ok := strings.CutPrefix(arr, "ARRAY[")
	if !ok || !strings.HasSuffix(inner, "]") {
		return false
	}
	var values []string
	seen := map[string]bool{}
	for _, item := range splitTop(inner[:len(inner)-1], ", ") {
		v, ok := stringLiteral(item)
		if !ok || v == "" || seen[v] {
			return false
		}
		seen[v] = true
		values = append(values, v)
	}
	if len(values) == 0 {
		return false
	}
	c.Type, c.Values = schema.TypeEnum, values
	c.MinLength, c.MaxLength = nil, nil
	return true
}
