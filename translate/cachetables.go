package translate

import (
	"sort"
	"strconv"

	"github.com/tablesmith/tablesmith/schema"
)

// noteCacheTables sets each table's cache lifetime and the tables a write
// to it may change, once per publish, so that a write knows at once which
// cached answers to purge.
func (p *Published) noteCacheTables() {
	// referencedBy maps a table to the tables whose rows its deletes
	// change: cascade deletes them (and goes on from there), set_null
	// updates them (and stops there).
	type edge struct {
		table   string
		cascade bool
	}
	referencedBy := map[string][]edge{}
	for _, t := range p.Compiled.Tables {
		for _, c := range t.Doc.Columns {
			if c.References == nil {
				continue
			}
			switch c.References.OnDelete {
			case schema.OnDeleteCascade, schema.OnDeleteSetNull:
				to := c.References.Table
				referencedBy[to] = append(referencedBy[to], edge{t.Name, c.References.OnDelete == schema.OnDeleteCascade})
			}
		}
	}
	for name, ts := range p.Tables {
		if c := ts.Table.Doc.Cache; c != nil {
			ts.CacheMaxAge = c.MaxAge
			ts.CacheControl = []string{"public, max-age=" + strconv.Itoa(c.MaxAge)}
			p.Cached = true
		}
		seen := map[string]bool{name: true}
		queue := []string{name}
		for len(queue) > 0 {
			from := queue[0]
			queue = queue[1:]
			for _, e := range referencedBy[from] {
				if seen[e.table] {
					continue
				}
				seen[e.table] = true
				if e.cascade {
					queue = append(queue, e.table)
				}
			}
		}
		delete(seen, name)
		others := make([]string, 0, len(seen))
		for t := range seen {
			others = append(others, t)
		}
		sort.Strings(others)
		ts.Changes = append([]string{name}, others...)
	}
}

// Reads are the tables whose rows an answer of this list may show or
// depend on: the listed table, the tables it embeds (with their junction
// tables) and those its related filters look into, each once, the listed
// table first.
func (l *ListSQL) Reads() []string { return l.reads }

// tablesRead collects the tables of a plan for ListSQL.Reads.
func (pl *listPlan) tablesRead() []string {
	seen := map[string]bool{}
	var out []string
	add := func(t *TableSQL) {
		if t != nil && !seen[t.Table.Name] {
			seen[t.Table.Name] = true
			out = append(out, t.Table.Name)
		}
	}
	add(pl.table)
	var embeds func([]*embedPlan)
	embeds = func(es []*embedPlan) {
		for _, e := range es {
			add(e.table)
			add(e.throughTable)
			embeds(e.children)
		}
	}
	embeds(pl.embeds)
	var conds func([]condition)
	conds = func(cs []condition) {
		for _, c := range cs {
			switch c := c.(type) {
			case allOf:
				conds(c)
			case anyOf:
				conds(c)
			case notCond:
				conds([]condition{c.x})
			case exists:
				add(c.table)
				add(c.junction)
				conds([]condition{c.cond})
			}
		}
	}
	conds(pl.where)
	return out
}
