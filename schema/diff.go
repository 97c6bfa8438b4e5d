package schema

import (
	"encoding/json"
	"fmt"
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
	Kind        string   `json:"kind"`
	Table       string   `json:"table"`
	Column      string   `json:"column,omitempty"`
	From        string   `json:"from,omitempty"`
	Destructive bool     `json:"destructive"`
	Description string   `json:"description"`
	Statements  []string `json:"statements"`
	// Unsupported is set on a change this version cannot apply yet; a plan
	// with one is refused as a whole.
	Unsupported string `json:"unsupported,omitempty"`
}

// Plan is what a generate would do: the changes and all their statements
// in execution order.
type Plan struct {
	Changes     []Change `json:"changes"`
	Statements  []string `json:"statements"`
	Destructive bool     `json:"destructive"`
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

// Diff computes the plan that turns the published document into the
// draft (both valid). published may be empty for a first publish.
func Diff(g DDL, published, draft Document) Plan {
	var p Plan
	var fks []string
	add := func(c Change) {
		p.Changes = append(p.Changes, c)
		if c.Destructive {
			p.Destructive = true
		}
	}
	matched := map[string]bool{} // published table names that survive
	for _, dt := range draft.Tables {
		old, ok := published.Table(dt.Name)
		if dt.RenamedFrom != "" && !ok {
			if o, found := published.Table(dt.RenamedFrom); found {
				old, ok = o, true
				add(Change{Kind: ChangeRenameTable, Table: dt.Name, From: o.Name,
					Description: fmt.Sprintf("rename table %s to %s (data kept)", o.Name, dt.Name),
					Statements:  []string{"ALTER TABLE " + g.table(o.Name) + " RENAME TO " + QuoteIdent(dt.Name)}})
			}
		}
		if !ok {
			add(Change{Kind: ChangeCreateTable, Table: dt.Name, Description: "create table " + dt.Name, Statements: g.CreateTable(dt)})
			for _, c := range dt.Columns {
				if c.References != nil {
					fks = append(fks, g.ForeignKey(dt.Name, c))
				}
			}
			continue
		}
		matched[old.Name] = true
		diffColumns(g, old, dt, add)
	}
	for _, ot := range published.Tables {
		if !matched[ot.Name] {
			add(Change{Kind: ChangeDropTable, Table: ot.Name, Destructive: true,
				Description: fmt.Sprintf("drop table %s and every row in it", ot.Name),
				Statements:  []string{"DROP TABLE " + g.table(ot.Name) + " CASCADE"}})
		}
	}
	// Table renames run first (later statements use the new names), then
	// drops so that names freed by them can be reused, then everything else
	// in document order, then foreign keys once every referenced table exists.
	order := []func(Change) bool{
		func(c Change) bool { return c.Kind == ChangeRenameTable },
		func(c Change) bool { return c.Kind == ChangeDropTable || c.Kind == ChangeDropColumn },
		func(c Change) bool {
			return c.Kind != ChangeRenameTable && c.Kind != ChangeDropTable && c.Kind != ChangeDropColumn
		},
	}
	for _, phase := range order {
		for _, c := range p.Changes {
			if phase(c) {
				p.Statements = append(p.Statements, c.Statements...)
			}
		}
	}
	if len(fks) > 0 {
		p.Statements = append(p.Statements, fks...)
		for i := range p.Changes {
			if p.Changes[i].Kind == ChangeCreateTable {
				t, _ := draft.Table(p.Changes[i].Table)
				for _, c := range t.Columns {
					if c.References != nil {
						p.Changes[i].Statements = append(p.Changes[i].Statements, g.ForeignKey(t.Name, c))
					}
				}
			}
		}
	}
	if p.Changes == nil {
		p.Changes = []Change{}
	}
	if p.Statements == nil {
		p.Statements = []string{}
	}
	return p
}

func diffColumns(g DDL, old, nt Table, add func(Change)) {
	if old.IDType != nt.IDType && !(old.IDType == "" && nt.IDType == IDInteger) && !(nt.IDType == "" && old.IDType == IDInteger) {
		add(Change{Kind: ChangeAlterColumn, Table: nt.Name, Column: ColID, Description: "change the id type of " + nt.Name,
			Unsupported: "changing a table's id type is not supported; create a new table instead"})
	}
	// Columns are addressed by their published name in ALTER statements
	// until the table rename (which runs before) and column renames apply.
	matched := map[string]bool{}
	for _, nc := range nt.Columns {
		oc, ok := old.Column(nc.Name)
		if nc.RenamedFrom != "" && !ok {
			if o, found := old.Column(nc.RenamedFrom); found {
				oc, ok = o, true
				add(Change{Kind: ChangeRenameColumn, Table: nt.Name, Column: nc.Name, From: o.Name,
					Description: fmt.Sprintf("rename column %s.%s to %s (data kept)", nt.Name, o.Name, nc.Name),
					Statements:  []string{"ALTER TABLE " + g.table(nt.Name) + " RENAME COLUMN " + QuoteIdent(o.Name) + " TO " + QuoteIdent(nc.Name)}})
			}
		}
		if !ok {
			c := Change{Kind: ChangeAddColumn, Table: nt.Name, Column: nc.Name,
				Description: fmt.Sprintf("add column %s.%s (%s)", nt.Name, nc.Name, nc.Type), Statements: g.AddColumn(nt.Name, nc)}
			if nc.Required && defaultLiteral(nc) == "" {
				c.Description += "; existing rows need a value, so this fails on a non-empty table"
			}
			add(c)
			continue
		}
		matched[oc.Name] = true
		if !sameColumnDefinition(oc, nc) {
			add(Change{Kind: ChangeAlterColumn, Table: nt.Name, Column: nc.Name,
				Description: fmt.Sprintf("change column %s.%s", nt.Name, nc.Name),
				Unsupported: "changing a column's type or constraints is not supported yet; add a new column instead"})
		}
	}
	for _, oc := range old.Columns {
		if !matched[oc.Name] {
			add(Change{Kind: ChangeDropColumn, Table: nt.Name, Column: oc.Name, Destructive: true,
				Description: fmt.Sprintf("drop column %s.%s and its values", nt.Name, oc.Name),
				Statements:  []string{"ALTER TABLE " + g.table(nt.Name) + " DROP COLUMN " + QuoteIdent(oc.Name)}})
		}
	}
}

// sameColumnDefinition compares what the database holds of a column,
// ignoring names and keys that live only in the document (description,
// html, relation names, rename markers).
func sameColumnDefinition(a, b Column) bool {
	strip := func(c Column) Column {
		c.Name, c.RenamedFrom, c.Description, c.HTML, c.Relation, c.ReverseRelation = "", "", "", false, "", ""
		c.Pattern = "" // checked in the validators only
		if c.References != nil && c.References.OnDelete == "" {
			r := *c.References
			r.OnDelete = OnDeleteRestrict
			c.References = &r
		}
		return c
	}
	x, _ := json.Marshal(strip(a))
	y, _ := json.Marshal(strip(b))
	return string(x) == string(y)
}
