package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Change kinds of a plan.
const (
	ChangeCreateTable  = "create_table"
	ChangeDropTable    = "drop_table"
	ChangeRenameTable  = "rename_table"
	ChangeAddColumn    = "add_column"
	ChangeDropColumn   = "drop_column"
	ChangeRenameColumn = "rename_column"
	ChangeAlterColumn  = "alter_column"
	ChangeMetadata     = "metadata"
)

// Change is one step of a plan, as the builder shows it.
type Change struct {
	Kind        string `json:"kind"`
	Table       string `json:"table"`
	Column      string `json:"column,omitempty"`
	From        string `json:"from,omitempty"`
	Destructive bool   `json:"destructive"`
	Description string `json:"description"`
	// Statements run inside the migration transaction.
	Statements []string `json:"statements"`
	// After finish the change once the migration has committed, without
	// holding a lock that stops the API: VALIDATE CONSTRAINT, SET NOT NULL
	// behind a validated check, CREATE INDEX CONCURRENTLY.
	After []string `json:"after_commit,omitempty"`
	// Checks say what the existing rows must satisfy; they are checked
	// before any statement runs.
	Checks []string `json:"checks,omitempty"`
	// RewritesTable is set when PostgreSQL rewrites the whole table (a
	// type change): reads and writes of that table wait for it.
	RewritesTable bool `json:"rewrites_table,omitempty"`
	// Unsupported is set on a change this version cannot apply; a plan
	// with one is refused as a whole.
	Unsupported string `json:"unsupported,omitempty"`
}

// Plan is what a generate would do: the changes and all their statements
// in execution order.
type Plan struct {
	Changes []Change `json:"changes"`
	// Statements run in one transaction, in this order.
	Statements []string `json:"statements"`
	// After runs once that transaction has committed.
	After []string `json:"after_commit"`
	// Prechecks find existing rows that the migration could not keep; they
	// run in the transaction before any statement.
	Prechecks []Precheck `json:"prechecks"`
	// Locks are the tables (qualified and quoted, as they are named before
	// the migration) locked in SHARE mode before the prechecks, so that no
	// write changes what they found; reads go on.
	Locks       []string `json:"locks"`
	Destructive bool     `json:"destructive"`
	// Notes explain choices the plan made that the draft may not expect,
	// such as a renamed_from that matched nothing.
	Notes []string `json:"notes,omitempty"`
}

// Unsupported returns the changes this version cannot apply.
func (p Plan) Unsupported() []Change {
	var out []Change
	for _, c := range p.Changes {
		if c.Unsupported != "" {
			out = append(out, c)
		}
	}
	return out
}

// Lost describes what the destructive changes of the plan would lose.
func (p Plan) Lost() []string {
	var out []string
	for _, c := range p.Changes {
		if c.Destructive {
			out = append(out, c.Description)
		}
	}
	return out
}

// Statement groups, in the order they run inside the migration. Each
// statement of a later group may rely on every earlier group: constraints
// follow their renamed tables and columns, drops free names for creates,
// and new constraints are added once the columns have their final types.
const (
	stepEarly         = iota // unique indexes on unchanged columns, built before any exclusive lock
	stepRenameTable          // ALTER TABLE RENAME
	stepRenameColumn         // ALTER TABLE RENAME COLUMN
	stepRenameNames          // constraints and indexes follow the names they are derived from
	stepDropReference        // foreign keys that go or change
	stepDrop                 // tables and columns
	stepLoosen               // checks, unique constraints, indexes, NOT NULL and defaults that go or change
	stepCreate               // new tables and columns
	stepRetype               // ALTER COLUMN TYPE
	stepDefault              // SET DEFAULT
	stepUnique               // unique constraints
	stepCheck                // CHECK constraints, NOT VALID
	stepReference            // foreign keys (NOT VALID on tables that may hold rows)
	stepRealtime             // change log and capture triggers, on tables under their final names
	stepCount
)

// differ accumulates a plan.
type differ struct {
	g          DDL
	pub, draft Document
	// oldOf maps a draft table name to the published table it continues;
	// newName maps a published table name to its draft name.
	oldOf   map[string]Table
	newName map[string]string
	steps   [stepCount][]string
	changes []*Change
	checks  []Precheck
	locks   map[string]bool
	after   []string
	notes   []string
	// realtimeReady is set once the plan creates the change log.
	realtimeReady bool
}

// Diff computes the plan that turns the published document into the
// draft (both valid). published may be empty for a first publish.
//
// renamed_from is honoured when the draft's name is not a published name
// and the published table or column it names is not claimed by another
// (by name, or by an earlier renamed_from); otherwise it is ignored and
// the plan says so in Notes, because a marker left over from an earlier
// rename is normal in a document the builder keeps editing.
func Diff(g DDL, published, draft Document) Plan {
	d := &differ{g: g, pub: published, draft: draft, oldOf: map[string]Table{}, newName: map[string]string{}, locks: map[string]bool{}}
	d.matchTables()
	for _, dt := range draft.Tables {
		ot, ok := d.oldOf[dt.Name]
		if !ok {
			d.createTable(dt)
			continue
		}
		var rename *Change
		if ot.Name != dt.Name {
			rename = d.renameTable(ot, dt)
		}
		d.diffTable(ot, dt, rename)
	}
	for _, ot := range published.Tables {
		if _, kept := d.newName[ot.Name]; !kept {
			c := d.change(Change{Kind: ChangeDropTable, Table: ot.Name, Destructive: true,
				Description: fmt.Sprintf("drop table %s and every row in it", ot.Name)})
			d.emit(c, stepDrop, "DROP TABLE "+g.table(ot.Name)+" CASCADE")
		}
	}
	return d.plan()
}

// matchTables pairs draft tables with published ones: by name first, then
// by renamed_from among the published tables no one has claimed.
func (d *differ) matchTables() {
	for _, dt := range d.draft.Tables {
		if ot, ok := d.pub.Table(dt.Name); ok {
			d.oldOf[dt.Name], d.newName[ot.Name] = ot, dt.Name
		}
	}
	for _, dt := range d.draft.Tables {
		if _, done := d.oldOf[dt.Name]; done || dt.RenamedFrom == "" {
			continue
		}
		ot, ok := d.pub.Table(dt.RenamedFrom)
		if _, claimed := d.newName[dt.RenamedFrom]; ok && !claimed {
			d.oldOf[dt.Name], d.newName[ot.Name] = ot, dt.Name
			continue
		}
		d.notes = append(d.notes, fmt.Sprintf("table %s: renamed_from %q matches no published table that is free to rename, so %s is created empty",
			dt.Name, dt.RenamedFrom, dt.Name))
	}
}

func (d *differ) change(c Change) *Change {
	if c.Statements == nil {
		c.Statements = []string{}
	}
	d.changes = append(d.changes, &c)
	return &c
}

// emit adds a statement to a change and to its group.
func (d *differ) emit(c *Change, step int, stmt string) {
	c.Statements = append(c.Statements, stmt)
	d.steps[step] = append(d.steps[step], stmt)
}

// later adds a statement that runs after the migration commits.
func (d *differ) later(c *Change, stmt string) {
	c.After = append(c.After, stmt)
	d.after = append(d.after, stmt)
}

func (d *differ) plan() Plan {
	p := Plan{Changes: []Change{}, Statements: []string{}, After: []string{}, Prechecks: []Precheck{}, Locks: []string{}, Notes: d.notes}
	for _, c := range d.changes {
		p.Changes = append(p.Changes, *c)
		p.Destructive = p.Destructive || c.Destructive
	}
	for _, group := range d.steps {
		p.Statements = append(p.Statements, group...)
	}
	p.After = append(p.After, d.after...)
	p.Prechecks = append(p.Prechecks, d.checks...)
	for t := range d.locks {
		p.Locks = append(p.Locks, t)
	}
	sort.Strings(p.Locks)
	return p
}

func (d *differ) createTable(dt Table) {
	desc := "create table " + dt.Name
	if dt.RenamedFrom != "" {
		desc += fmt.Sprintf(" (renamed_from %q matched nothing, so it starts empty)", dt.RenamedFrom)
	}
	c := d.change(Change{Kind: ChangeCreateTable, Table: dt.Name, Description: desc})
	for _, st := range d.g.CreateTable(dt) {
		d.emit(c, stepCreate, st)
	}
	// Foreign keys wait until every table of the plan exists; the new
	// table is empty, so adding them valid costs nothing.
	for _, col := range dt.Columns {
		if col.References != nil {
			d.emit(c, stepReference, d.g.ForeignKey(dt.Name, col))
		}
	}
	if dt.Realtime {
		d.realtimeOn(c, dt.Name)
	}
}

// realtimeOn adds a table's capture triggers, after the change log they
// write to (created once per plan, and only if missing).
func (d *differ) realtimeOn(c *Change, table string) {
	if !d.realtimeReady {
		d.realtimeReady = true
		for _, st := range d.g.RealtimeSetup() {
			d.emit(c, stepRealtime, st)
		}
	}
	for _, st := range d.g.RealtimeOn(table) {
		d.emit(c, stepRealtime, st)
	}
}

// realtimeChange turns a kept table's capture on or off: a metadata change
// of the document that also creates or drops triggers.
func (d *differ) realtimeChange(ot, nt Table) {
	if ot.Realtime == nt.Realtime {
		return
	}
	if nt.Realtime {
		c := d.change(Change{Kind: ChangeMetadata, Table: nt.Name, Description: realtimeOnDescription(nt.Name, "")})
		d.realtimeOn(c, nt.Name)
		return
	}
	c := d.change(Change{Kind: ChangeMetadata, Table: nt.Name,
		Description: fmt.Sprintf("turn realtime off for %s (its capture triggers are dropped)", nt.Name)})
	for _, st := range d.g.RealtimeOff(nt.Name) {
		d.emit(c, stepRealtime, st)
	}
}

// realtimeOnDescription describes turning a kept table's capture on, with
// what asked for it when something did (a webhook).
func realtimeOnDescription(table, why string) string {
	if why != "" {
		why += "; "
	}
	return fmt.Sprintf("turn realtime on for %s (%scapture triggers write its changes to the project's change log)", table, why)
}

// ExplainRealtime says, in the change that turns realtime on for table,
// why the plan does it although the draft did not ask: a generate
// switches capture on for the tables webhooks name (docs/webhooks.md).
func (p *Plan) ExplainRealtime(table, why string) {
	for i := range p.Changes {
		c := &p.Changes[i]
		switch {
		case c.Table != table:
		case c.Kind == ChangeMetadata && c.Description == realtimeOnDescription(table, ""):
			c.Description = realtimeOnDescription(table, why)
		case c.Kind == ChangeCreateTable:
			c.Description += fmt.Sprintf(", with realtime on (%s)", why)
		}
	}
}

func (d *differ) renameTable(ot, dt Table) *Change {
	c := d.change(Change{Kind: ChangeRenameTable, Table: dt.Name, From: ot.Name,
		Description: fmt.Sprintf("rename table %s to %s (data kept)", ot.Name, dt.Name)})
	d.emit(c, stepRenameTable, "ALTER TABLE "+d.g.table(ot.Name)+" RENAME TO "+QuoteIdent(dt.Name))
	// PostgreSQL named the primary key and the id sequence after the table;
	// they follow it so that a new table may take the old name cleanly.
	d.emit(c, stepRenameTable, "ALTER INDEX IF EXISTS "+d.g.table(pgObjectName(ot.Name, "", "pkey"))+
		" RENAME TO "+QuoteIdent(pgObjectName(dt.Name, "", "pkey")))
	if ot.IDType != IDUUID {
		d.emit(c, stepRenameTable, "ALTER SEQUENCE IF EXISTS "+d.g.table(pgObjectName(ot.Name, "id", "seq"))+
			" RENAME TO "+QuoteIdent(pgObjectName(dt.Name, "id", "seq")))
	}
	return c
}

// diffTable compares a surviving table column by column. Statements
// address it by its new name: table renames run first.
func (d *differ) diffTable(ot, nt Table, rename *Change) {
	if ot.IDType != nt.IDType && !(ot.IDType == "" && nt.IDType == IDInteger) && !(nt.IDType == "" && ot.IDType == IDInteger) {
		d.change(Change{Kind: ChangeAlterColumn, Table: nt.Name, Column: ColID, Description: "change the id type of " + nt.Name,
			Unsupported: "changing a table's id type is not supported; create a new table instead"})
	}
	oldOf := map[string]Column{}
	claimed := map[string]bool{}
	for _, nc := range nt.Columns {
		if oc, ok := ot.Column(nc.Name); ok {
			oldOf[nc.Name], claimed[oc.Name] = oc, true
		}
	}
	for _, nc := range nt.Columns {
		if _, done := oldOf[nc.Name]; done || nc.RenamedFrom == "" {
			continue
		}
		if oc, ok := ot.Column(nc.RenamedFrom); ok && !claimed[oc.Name] {
			oldOf[nc.Name], claimed[oc.Name] = oc, true
			continue
		}
		d.notes = append(d.notes, fmt.Sprintf("column %s.%s: renamed_from %q matches no published column that is free to rename, so %s is added as a new column",
			nt.Name, nc.Name, nc.RenamedFrom, nc.Name))
	}
	for _, nc := range nt.Columns {
		oc, ok := oldOf[nc.Name]
		if !ok {
			d.addColumn(ot, nt, nc)
			continue
		}
		owner := rename
		if oc.Name != nc.Name {
			owner = d.change(Change{Kind: ChangeRenameColumn, Table: nt.Name, Column: nc.Name, From: oc.Name,
				Description: fmt.Sprintf("rename column %s.%s to %s (data kept)", nt.Name, oc.Name, nc.Name)})
			d.emit(owner, stepRenameColumn, "ALTER TABLE "+d.g.table(nt.Name)+" RENAME COLUMN "+QuoteIdent(oc.Name)+" TO "+QuoteIdent(nc.Name))
		}
		if owner != nil {
			d.renameNames(owner, ot, nt, oc, nc)
		}
		d.alterColumn(ot, nt, oc, nc)
	}
	for _, oc := range ot.Columns {
		if !claimed[oc.Name] {
			c := d.change(Change{Kind: ChangeDropColumn, Table: nt.Name, Column: oc.Name, Destructive: true,
				Description: fmt.Sprintf("drop column %s.%s and its values", nt.Name, oc.Name)})
			d.emit(c, stepDrop, "ALTER TABLE "+d.g.table(nt.Name)+" DROP COLUMN "+QuoteIdent(oc.Name))
		}
	}
	if what := tableMetadataChanges(ot, nt); what != "" {
		d.change(Change{Kind: ChangeMetadata, Table: nt.Name, Description: fmt.Sprintf("change %s of %s (no SQL)", what, nt.Name)})
	}
	d.realtimeChange(ot, nt)
}

// renameNames renames the constraints and indexes whose names derive
// from a table or column that was renamed, so that errors keep mapping
// back to columns (see ConstraintName) and the old names are free again.
func (d *differ) renameNames(c *Change, ot, nt Table, oc, nc Column) {
	rename := func(suffix string, index bool) {
		from, to := ConstraintName(ot.Name, oc.Name, suffix), ConstraintName(nt.Name, nc.Name, suffix)
		if from == to {
			return
		}
		if index {
			d.emit(c, stepRenameNames, "ALTER INDEX IF EXISTS "+d.g.table(from)+" RENAME TO "+QuoteIdent(to))
			return
		}
		d.emit(c, stepRenameNames, "ALTER TABLE "+d.g.table(nt.Name)+" RENAME CONSTRAINT "+QuoteIdent(from)+" TO "+QuoteIdent(to))
	}
	if oc.Unique {
		rename("key", false)
	}
	if checkExpr(oc) != "" {
		rename("check", false)
	}
	if oc.References != nil {
		rename("fkey", false)
	}
	if d.g.wantsIndex(oc, indexPlain) {
		rename(indexPlain, true)
		rename(indexLegacyPlain, true) // still there until its replacement is built
	}
	if oc.Searchable {
		rename(indexTrigram, true)
	}
}

// tableMetadataChanges names the table keys that changed but live only in
// the document (they change the API, not the database).
func tableMetadataChanges(a, b Table) string {
	var what []string
	if !jsonEqual(a.Permissions, b.Permissions) {
		what = append(what, "permissions")
	}
	if a.Auth != b.Auth {
		what = append(what, "auth")
	}
	if a.EmailVerification != b.EmailVerification {
		what = append(what, "email_verification")
	}
	if a.OwnerColumn != b.OwnerColumn {
		what = append(what, "owner_column")
	}
	if a.Description != b.Description {
		what = append(what, "description")
	}
	if a.Junction != b.Junction {
		what = append(what, "junction")
	}
	if !jsonEqual(a.Cache, b.Cache) {
		what = append(what, "cache")
	}
	return strings.Join(what, ", ")
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// pgObjectName is the name PostgreSQL gives an object it names itself
// (makeObjectName): name1_name2_label, with the longer of the two names
// shortened until the whole fits in 63 bytes.
func pgObjectName(name1, name2, label string) string {
	overhead := len(label) + 1
	if name2 != "" {
		overhead++
	}
	n1, n2 := len(name1), len(name2)
	for n1+n2 > 63-overhead {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := name1[:n1]
	if name2 != "" {
		out += "_" + name2[:n2]
	}
	return out + "_" + label
}
