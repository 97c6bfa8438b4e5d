package schema

import "fmt"

// ManyToMany is a relation from Table to Target through a junction table:
// rows of Target whose id some junction row pairs, in its Far column, with
// the Table row its Near column references.
type ManyToMany struct {
	Table, Name, Junction, Near, Far, Target string
}

// JunctionEnds returns the positions of a junction table's two reference
// columns. A table is a junction when it is marked so, or when its only
// user columns are two required references; a marked table must have
// exactly two required references (Validate says so otherwise). Auth
// tables never are.
func JunctionEnds(t Table) (a, b int, ok bool) {
	if t.Auth {
		return 0, 0, false
	}
	var refs []int
	user := 0
	for i, c := range t.Columns {
		if isExternalSystem(t, c.Name) {
			continue
		}
		user++
		if c.References != nil && c.Required {
			refs = append(refs, i)
		}
	}
	if len(refs) != 2 || (!t.Junction && user != 2) {
		return 0, 0, false
	}
	return refs[0], refs[1], true
}

// isExternalSystem reports the key and timestamps of a fronted table,
// which are not user columns.
func isExternalSystem(t Table, name string) bool {
	x := t.External
	return x != nil && (name == x.PrimaryKey || name == ColCreatedAt && x.HasCreatedAt || name == ColUpdatedAt && x.HasUpdatedAt)
}

// manyToMany names the relations every junction of d gives the two tables
// it links, one each way. A relation is named after the table it reaches
// (posts get "tags" through post_tags); when that name is taken on the
// table (by a column, a direct relation or an earlier junction), or the
// junction links a table to itself, it is <junction>_<far relation>
// ("follows_followee"). taken holds the names already claimed per table
// and is extended. A marked junction whose relation finds no free name is
// a problem; an unmarked one just gives no relation.
func manyToMany(d Document, taken map[string]map[string]bool, p Problems) []ManyToMany {
	var out []ManyToMany
	for i, j := range d.Tables {
		a, b, ok := JunctionEnds(j)
		if !ok {
			continue
		}
		for _, ends := range [2][2]Column{{j.Columns[a], j.Columns[b]}, {j.Columns[b], j.Columns[a]}} {
			near, far := ends[0], ends[1]
			from, to := near.References.Table, far.References.Table
			candidates := []string{j.Name + "_" + ForwardRelationName(far)}
			if from != to {
				candidates = append([]string{to}, candidates...)
			}
			name := ""
			for _, c := range candidates {
				if !taken[from][c] && !isSystemColumn(c) {
					name = c
					break
				}
			}
			if name == "" {
				if j.Junction && p != nil {
					p.add(fmt.Sprintf("tables[%d].junction", i),
						"the relation from %s to %s through %s has no free name (%s and %s are taken); rename a relation or column", from, to, j.Name, candidates[0], candidates[len(candidates)-1])
				}
				continue
			}
			if taken[from] == nil {
				taken[from] = map[string]bool{}
			}
			taken[from][name] = true
			out = append(out, ManyToMany{Table: from, Name: name, Junction: j.Name, Near: near.Name, Far: far.Name, Target: to})
		}
	}
	return out
}

// checkJunction: a table marked junction links exactly two tables.
func checkJunction(p Problems, t *Table, tp string) {
	if !t.Junction {
		return
	}
	if t.Auth {
		p.add(tp+".junction", "an auth table cannot be a junction")
		return
	}
	if _, _, ok := JunctionEnds(*t); !ok {
		p.add(tp+".junction", "a junction needs exactly two required reference columns")
	}
}

// relationNamesTaken holds, per table, the names its columns and direct
// relations already use.
func relationNamesTaken(d Document) map[string]map[string]bool {
	taken := map[string]map[string]bool{}
	claim := func(table, name string) {
		if taken[table] == nil {
			taken[table] = map[string]bool{}
		}
		taken[table][name] = true
	}
	for _, t := range d.Tables {
		for _, c := range t.Columns {
			claim(t.Name, c.Name)
			if c.References != nil {
				claim(t.Name, ForwardRelationName(c))
				claim(c.References.Table, ReverseRelationName(t.Name, c))
			}
		}
	}
	return taken
}
