package introspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// Origins of a database change: who made the difference between the
// draft and the database.
const (
	// OriginDatabase: the database changed since the last generate (or
	// refresh), outside Tablesmith.
	OriginDatabase = "database"
	// OriginDraft: an unpublished edit of the draft, which generate
	// would apply.
	OriginDraft = "draft"
)

// Kinds of database changes.
const (
	DBTableAdded    = "table_added"
	DBTableRemoved  = "table_removed"
	DBTableChanged  = "table_changed"
	DBColumnAdded   = "column_added"
	DBColumnRemoved = "column_removed"
	DBColumnChanged = "column_changed"
)

// Change is one difference between a project's draft and the database
// it fronts.
type Change struct {
	Kind        string `json:"kind"`
	Table       string `json:"table"`
	Column      string `json:"column,omitempty"`
	Origin      string `json:"origin"`
	Description string `json:"description"`
}

// Reconciliation is the outcome of comparing a fronted project's
// published document and draft with a new introspection of its database.
type Reconciliation struct {
	// Changes lists every difference between the draft and the database.
	Changes []Change `json:"changes"`
	// Replaced lists unpublished edits of the draft that the database's
	// own change to the same table or column replaces when applied.
	Replaced []string `json:"replaced"`
	// Published is the published document brought up to the database's
	// state: what the API serves after the refresh is applied.
	Published schema.Document `json:"-"`
	// Draft is the draft with the database's changes and with the
	// user's unpublished edits that they do not touch.
	Draft schema.Document `json:"-"`
}

// Reconcile compares the draft of a project that fronts a database with
// db, the database's schema as Read reads it now, using published
// (what the API serves, which was the database's state at the last
// generate) to tell changes made in the database apart from edits of the
// draft: a difference where the database no longer matches published was
// made in the database; one where it does was made in the draft. The
// result's Published adopts the database's changes, and its Draft adopts
// them too while keeping the draft's own edits, so that a generate after
// the refresh applies exactly the edits and nothing the database already
// has. Tables Tablesmith created in the fronted schema (without External)
// stay managed: their system columns are not compared.
func Reconcile(published, draft, db schema.Document) Reconciliation {
	r := &reconciler{res: Reconciliation{Changes: []Change{}, Replaced: []string{},
		Published: schema.Document{Tables: []schema.Table{}}, Draft: schema.Document{Tables: []schema.Table{}}}}
	// The draft's tables keyed by the published name they stand for.
	draftOf := map[string]int{}
	for i, t := range draft.Tables {
		if _, ok := published.Table(t.Name); ok {
			draftOf[t.Name] = i
		} else if t.RenamedFrom != "" {
			if _, ok := published.Table(t.RenamedFrom); ok {
				draftOf[t.RenamedFrom] = i
			}
		}
	}
	newDraft := map[int]*schema.Table{} // draft index → its reconciled table (nil: removed)
	removed := map[int]bool{}
	var added []schema.Table
	for _, pt := range published.Tables {
		bt, inDB := db.Table(pt.Name)
		di, inDraft := draftOf[pt.Name]
		var dt *schema.Table
		if inDraft {
			dt = &draft.Tables[di]
		}
		if !inDB {
			r.change(DBTableRemoved, pt.Name, "", OriginDatabase, "table %s is no longer in the database, or can no longer be served; the API stops serving it", pt.Name)
			if dt != nil {
				if !sameTable(*dt, pt) {
					r.replaced("your unpublished edits of table %s", dt.Name)
				}
				removed[di] = true
			}
			continue
		}
		np, nd := r.table(pt, bt, dt)
		r.res.Published.Tables = append(r.res.Published.Tables, np)
		if dt != nil {
			newDraft[di] = nd
		} else {
			r.change(DBTableRemoved, pt.Name, "", OriginDraft, "the draft drops table %s; generate would drop it in the database (after confirmation)", pt.Name)
		}
	}
	for _, bt := range db.Tables {
		if _, ok := published.Table(bt.Name); ok {
			continue
		}
		// A table new to the database. A draft table of the same name
		// (one the user meant to create) gives way to it.
		for i, t := range draft.Tables {
			if t.Name == bt.Name && !removed[i] && newDraft[i] == nil {
				r.replaced("your unpublished table %s, which the database now has", t.Name)
				removed[i] = true
			}
		}
		r.change(DBTableAdded, bt.Name, "", OriginDatabase, "table %s was added to the database; the API serves it after the refresh", bt.Name)
		r.res.Published.Tables = append(r.res.Published.Tables, bt)
		added = append(added, bt)
	}
	for i, t := range draft.Tables {
		switch {
		case removed[i]:
		case newDraft[i] != nil:
			r.res.Draft.Tables = append(r.res.Draft.Tables, *newDraft[i])
		default:
			if _, ok := draftOf[t.Name]; !ok {
				r.change(DBTableAdded, t.Name, "", OriginDraft, "the draft adds table %s; generate would create it", t.Name)
			}
			r.res.Draft.Tables = append(r.res.Draft.Tables, t)
		}
	}
	r.res.Draft.Tables = append(r.res.Draft.Tables, added...)
	return r.res
}

type reconciler struct{ res Reconciliation }

func (r *reconciler) change(kind, table, column, origin, format string, args ...any) {
	r.res.Changes = append(r.res.Changes, Change{Kind: kind, Table: table, Column: column, Origin: origin,
		Description: fmt.Sprintf(format, args...)})
}

func (r *reconciler) replaced(format string, args ...any) {
	r.res.Replaced = append(r.res.Replaced, fmt.Sprintf(format, args...))
}

// table reconciles one table present in the published document and the
// database: np is its new published form, nd its new draft form (nil dt:
// the draft drops it, and keeps dropping it).
func (r *reconciler) table(pt, bt schema.Table, dt *schema.Table) (np schema.Table, nd *schema.Table) {
	managed := pt.External == nil
	if managed {
		bt = withoutSystemColumns(bt)
	}
	np, nd = r.tableHeads(pt, bt, dt, managed)
	m := &columnMerge{r: r, pt: pt, bt: bt, dt: dt, draftCol: draftColumnsByPublishedName(pt, dt),
		draftNew: map[int]*schema.Column{}, draftGone: map[int]bool{}}
	for _, bc := range bt.Columns {
		np.Columns = append(np.Columns, m.databaseColumn(bc))
	}
	m.removedFromDatabase()
	if nd == nil {
		return np, nil
	}
	nd.Columns = m.draftColumns(nd.Name)
	if np.Columns == nil {
		np.Columns = []schema.Column{}
	}
	return np, nd
}

// tableHeads starts the new published and draft forms of a table: no
// columns yet, and for a fronted table the database's key and timestamps.
func (r *reconciler) tableHeads(pt, bt schema.Table, dt *schema.Table, managed bool) (np schema.Table, nd *schema.Table) {
	np = pt
	np.Columns = nil
	if !managed {
		np.External, np.IDType = bt.External, bt.IDType
		if *pt.External != *bt.External || pt.IDType != bt.IDType {
			r.change(DBTableChanged, pt.Name, "", OriginDatabase, "the primary key or timestamps of table %s changed in the database", pt.Name)
		}
	}
	if dt != nil {
		d := *dt
		d.Columns = nil
		if !managed && d.External != nil {
			d.External, d.IDType = bt.External, bt.IDType
		}
		nd = &d
		if d.Name != pt.Name {
			r.change(DBTableChanged, pt.Name, "", OriginDraft, "the draft renames table %s to %s", pt.Name, d.Name)
		}
	}
	return np, nd
}

// draftColumnsByPublishedName indexes the draft's columns by the published
// name they stand for.
func draftColumnsByPublishedName(pt schema.Table, dt *schema.Table) map[string]int {
	draftCol := map[string]int{}
	if dt == nil {
		return draftCol
	}
	for i, c := range dt.Columns {
		if _, ok := pt.Column(c.Name); ok {
			draftCol[c.Name] = i
		} else if c.RenamedFrom != "" {
			if _, ok := pt.Column(c.RenamedFrom); ok {
				draftCol[c.RenamedFrom] = i
			}
		}
	}
	return draftCol
}

// columnMerge reconciles the columns of one table: pt published, bt in
// the database, dt in the draft (nil: the draft drops the table).
type columnMerge struct {
	r      *reconciler
	pt, bt schema.Table
	dt     *schema.Table
	// draftCol maps a published column name to its draft column's index.
	draftCol map[string]int
	// draftNew holds reconciled draft columns by index (absent: keep as is).
	draftNew map[int]*schema.Column
	// draftGone marks draft columns the refresh replaces or removes.
	draftGone map[int]bool
	// appended are database columns the draft gains at its end.
	appended []schema.Column
}

// databaseColumn answers the new published form of one column the
// database has, noting how it differs from the published and draft ones.
func (m *columnMerge) databaseColumn(bc schema.Column) schema.Column {
	pt, dt := m.pt, m.dt
	pc, inPub := pt.Column(bc.Name)
	di, inDraft := m.draftCol[bc.Name]
	if !inPub {
		m.addedInDatabase(bc)
		return bc
	}
	if sameColumnInDB(pc, bc) {
		if dt == nil {
			return pc
		}
		if !inDraft {
			m.r.change(DBColumnRemoved, pt.Name, pc.Name, OriginDraft, "the draft drops column %s.%s; generate would drop it in the database (after confirmation)", pt.Name, pc.Name)
		} else if dc := dt.Columns[di]; !sameColumnInDB(pc, dc) || dc.Name != pc.Name {
			m.r.change(DBColumnChanged, pt.Name, pc.Name, OriginDraft, "the draft changes column %s.%s; generate would apply it", pt.Name, pc.Name)
		}
		return pc
	}
	adopted := keepDocumentOnly(pc, bc)
	m.r.change(DBColumnChanged, pt.Name, pc.Name, OriginDatabase, "column %s.%s changed in the database: %s", pt.Name, pc.Name, describeChange(pc, bc))
	if dt != nil && inDraft {
		dc := dt.Columns[di]
		if !sameColumnInDB(pc, dc) {
			m.r.replaced("your unpublished change of column %s.%s", dt.Name, dc.Name)
		}
		nc := keepDocumentOnly(dc, bc)
		nc.Name, nc.RenamedFrom = dc.Name, dc.RenamedFrom
		m.draftNew[di] = &nc
	}
	return adopted
}

// addedInDatabase notes a column the database has and the published
// table has not; the draft gets it too, replacing an unpublished column
// of the same name.
func (m *columnMerge) addedInDatabase(bc schema.Column) {
	pt, dt := m.pt, m.dt
	m.r.change(DBColumnAdded, pt.Name, bc.Name, OriginDatabase, "column %s.%s (%s) was added to the database", pt.Name, bc.Name, describeType(bc))
	if dt == nil {
		return
	}
	for i, c := range dt.Columns {
		if c.Name == bc.Name && !m.draftGone[i] {
			if _, isPub := m.draftCol[c.Name]; !isPub {
				m.r.replaced("your unpublished column %s.%s, which the database now has", dt.Name, c.Name)
				m.draftGone[i] = true
			}
		}
	}
	m.appended = append(m.appended, bc)
}

// removedFromDatabase notes the published columns the database no longer
// has; the draft loses them too.
func (m *columnMerge) removedFromDatabase() {
	pt, dt := m.pt, m.dt
	for _, pc := range pt.Columns {
		if _, inDB := m.bt.Column(pc.Name); inDB {
			continue
		}
		m.r.change(DBColumnRemoved, pt.Name, pc.Name, OriginDatabase, "column %s.%s is no longer in the database", pt.Name, pc.Name)
		if di, inDraft := m.draftCol[pc.Name]; inDraft {
			if !sameColumnInDB(pc, dt.Columns[di]) {
				m.r.replaced("your unpublished change of column %s.%s", dt.Name, dt.Columns[di].Name)
			}
			m.draftGone[di] = true
		}
	}
}

// draftColumns answers the new draft's columns: its own in order, less
// those gone, reconciled where the database changed them, then the
// columns the database added.
func (m *columnMerge) draftColumns(name string) []schema.Column {
	var out []schema.Column
	for i, c := range m.dt.Columns {
		switch {
		case m.draftGone[i]:
		case m.draftNew[i] != nil:
			out = append(out, *m.draftNew[i])
		default:
			if _, isPub := m.draftCol[c.Name]; !isPub && c.RenamedFrom == "" {
				m.r.change(DBColumnAdded, name, c.Name, OriginDraft, "the draft adds column %s.%s; generate would add it", name, c.Name)
			}
			out = append(out, c)
		}
	}
	out = append(out, m.appended...)
	if out == nil {
		out = []schema.Column{}
	}
	return out
}

// withoutSystemColumns drops id, created_at and updated_at from an
// introspected table, to compare it with a managed one.
func withoutSystemColumns(t schema.Table) schema.Table {
	out := t
	out.Columns = nil
	for _, c := range t.Columns {
		if !schema.SystemColumn(c.Name) {
			out.Columns = append(out.Columns, c)
		}
	}
	return out
}

// sameTable compares two tables' database-visible definitions.
func sameTable(a, b schema.Table) bool {
	if a.Name != b.Name || len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Columns {
		if a.Columns[i].Name != b.Columns[i].Name || !sameColumnInDB(a.Columns[i], b.Columns[i]) {
			return false
		}
	}
	return true
}

// storedAsText are the types the database holds as plain text, whose
// check constraints (if any) introspection cannot tell apart.
func storedAsText(t string) bool {
	return t == schema.TypeEmail || t == schema.TypeURL || t == schema.TypePassword
}

// sameColumnInDB compares what the database itself says about a column
// (type, nullability, default, uniqueness, bounds, values, foreign key).
// a is the document's column, b may be introspected: a column the
// document types email, url or password is text in the database, and
// limits only the validators enforce do not count.
func sameColumnInDB(a, b schema.Column) bool {
	norm := func(c schema.Column, like schema.Column) schema.Column {
		out := schema.Column{Type: c.Type, Required: c.Required, Unique: c.Unique, Min: c.Min, Max: c.Max,
			MinLength: c.MinLength, MaxLength: c.MaxLength, Values: c.Values, PGType: c.PGType}
		if storedAsText(like.Type) && c.Type == schema.TypeText {
			out.Type = like.Type
		}
		if out.Type == schema.TypeEmail || out.Type == schema.TypePassword {
			out.MinLength, out.MaxLength = nil, nil
		}
		if c.References != nil {
			ref := *c.References
			if ref.OnDelete == "" {
				ref.OnDelete = schema.OnDeleteRestrict
			}
			out.References = &ref
		}
		out.Default = normalDefault(c)
		return out
	}
	x, _ := json.Marshal(norm(a, a))
	y, _ := json.Marshal(norm(b, a))
	return bytes.Equal(x, y)
}

// normalDefault renders a default so that equal values compare equal
// (1.50 and "1.5" on a decimal column, no default and null).
func normalDefault(c schema.Column) json.RawMessage {
	raw := bytes.TrimSpace(c.Default)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return raw
	}
	switch x := v.(type) {
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case string:
		if c.Type == schema.TypeDecimal || c.Type == schema.TypeNumber || c.Type == schema.TypeInteger {
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64))
			}
		}
	}
	out, _ := json.Marshal(v)
	return out
}

// keepDocumentOnly returns the database's column b with what only the
// document knows of a kept: description, relation names, html, pattern,
// search and index flags, and the type and limits of a column the
// database holds as text.
func keepDocumentOnly(a, b schema.Column) schema.Column {
	out := b
	out.Name, out.RenamedFrom = a.Name, a.RenamedFrom
	if a.Description != "" {
		out.Description = a.Description
	}
	out.HTML, out.Pattern, out.Searchable = a.HTML, a.Pattern, a.Searchable
	out.Index = a.Index || b.Index
	if out.References != nil && a.References != nil && a.References.Table == out.References.Table {
		out.Relation, out.ReverseRelation = a.Relation, a.ReverseRelation
	}
	if storedAsText(a.Type) && b.Type == schema.TypeText {
		out.Type = a.Type
		if a.Type == schema.TypeEmail || a.Type == schema.TypePassword {
			out.MinLength, out.MaxLength = a.MinLength, a.MaxLength
		}
	}
	return out
}

func describeType(c schema.Column) string {
	if c.Type == schema.TypePassthrough {
		return c.PGType + ", read-only"
	}
	return c.Type
}

// describeChange says how a column's definition differs, property by
// property, in the builder's words.
func describeChange(a, b schema.Column) string {
	var parts []string
	show := func(name string, x, y any) {
		xs, _ := json.Marshal(x)
		ys, _ := json.Marshal(y)
		if !bytes.Equal(xs, ys) {
			parts = append(parts, fmt.Sprintf("%s %s → %s", name, xs, ys))
		}
	}
	if a.Type != b.Type && !(storedAsText(a.Type) && b.Type == schema.TypeText) {
		parts = append(parts, fmt.Sprintf("type %s → %s", describeType(a), describeType(b)))
	}
	show("required", a.Required, b.Required)
	show("unique", a.Unique, b.Unique)
	show("default", normalDefault(a), normalDefault(b))
	show("min", a.Min, b.Min)
	show("max", a.Max, b.Max)
	if !(a.Type == schema.TypeEmail || a.Type == schema.TypePassword) {
		show("min_length", a.MinLength, b.MinLength)
		show("max_length", a.MaxLength, b.MaxLength)
	}
	show("values", a.Values, b.Values)
	ra, rb := "", ""
	if a.References != nil {
		ra = a.References.Table
	}
	if b.References != nil {
		rb = b.References.Table
	}
	if ra != rb {
		parts = append(parts, fmt.Sprintf("references %q → %q", ra, rb))
	}
	if len(parts) == 0 {
		return "its foreign key rule changed"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// RepairPublished makes a reconciled published document valid, taking
// out (and noting) what a database change made unservable, as Read does
// for a fresh document.
func RepairPublished(d schema.Document) (schema.Document, []Note) {
	in := &introspector{res: Result{Document: d, Notes: []Note{}}}
	if len(schema.Validate(d)) == 0 {
		return d, nil
	}
	nameRelations(&in.res.Document)
	in.repair()
	for _, u := range in.res.Unsupported {
		in.res.Notes = append(in.res.Notes, Note{Table: u.Table, Note: "left out of the API: " + u.Reason})
	}
	return in.res.Document, in.res.Notes
}
