package introspect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// The mapping: catalog rows become a schema document (tables, columns,
// keys, references, relation names), with notes on what could not be
// mapped; the default and check expressions go through sqlexpr.go.

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
