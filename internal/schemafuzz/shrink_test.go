package schemafuzz

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/tablesmith/tablesmith/schema"
)

// shrinker reduces a failing case to a smaller one that fails with the
// same kind: fewer requests, tables, columns, switches, conditions and
// fields, tried one at a time (each try runs the whole case on a fresh
// project), until nothing more can go or the budget is spent.
type shrinker struct {
	rn       *runner
	best     fuzzCase
	fail     *failure
	log      []exchange
	deadline time.Time
	runs     int
	maxRuns  int
}

func shrink(rn *runner, c fuzzCase, f *failure, log []exchange, budget time.Duration, maxRuns int) *shrinker {
	sh := &shrinker{rn: rn, best: c, fail: f, log: log, deadline: time.Now().Add(budget), maxRuns: maxRuns}
	sh.cutAfterFailure()
	for progress := true; progress && !sh.spent(); {
		progress = false
		for _, step := range []func() bool{sh.dropOps, sh.dropTables, sh.dropStreams, sh.dropColumns, sh.dropSwitches, sh.simplifyOps} {
			if step() {
				progress = true
			}
		}
	}
	return sh
}

func (sh *shrinker) spent() bool { return sh.runs >= sh.maxRuns || time.Now().After(sh.deadline) }

// cutAfterFailure drops the requests after the one that failed.
func (sh *shrinker) cutAfterFailure() {
	if sh.fail.Op >= 0 && sh.fail.Op+1 < len(sh.best.Ops) {
		sh.best.Ops = sh.best.Ops[:sh.fail.Op+1]
	}
}

// try runs a candidate and keeps it when it fails the same way.
func (sh *shrinker) try(cand fuzzCase) bool {
	if sh.spent() || !repair(&cand.Schema) {
		return false
	}
	var streams []streamWhere
	for _, sw := range cand.Streams {
		if t, ok := cand.Schema.Table(sw.Table); ok && t.Realtime {
			streams = append(streams, sw)
		}
	}
	cand.Streams = streams
	sh.runs++
	f, log := sh.rn.run(cand)
	if f == nil || f.Kind != sh.fail.Kind {
		return false
	}
	sh.best, sh.fail, sh.log = cand, f, log
	sh.cutAfterFailure()
	return true
}

// clone is a deep copy of the best case so far.
func (sh *shrinker) clone() fuzzCase {
	raw, err := json.Marshal(sh.best)
	if err != nil {
		panic(err)
	}
	var c fuzzCase
	if err := json.Unmarshal(raw, &c); err != nil {
		panic(err)
	}
	return c
}

// dropOps removes runs of requests, halving their length (as ddmin does).
func (sh *shrinker) dropOps() bool {
	progress := false
	for size := len(sh.best.Ops) / 2; size >= 1; size /= 2 {
		for i := 0; i < len(sh.best.Ops) && !sh.spent(); {
			cand := sh.clone()
			end := min(i+size, len(cand.Ops))
			cand.Ops = append(cand.Ops[:i:i], cand.Ops[end:]...)
			if sh.try(cand) {
				progress = true
				continue
			}
			i += size
		}
	}
	return progress
}

func (sh *shrinker) dropTables() bool {
	progress := false
	for i := len(sh.best.Schema.Tables) - 1; i >= 0 && !sh.spent(); i-- {
		if i >= len(sh.best.Schema.Tables) {
			continue
		}
		cand := sh.clone()
		dropTable(&cand.Schema, i)
		progress = sh.try(cand) || progress
	}
	return progress
}

func (sh *shrinker) dropStreams() bool {
	progress := false
	for i := len(sh.best.Streams) - 1; i >= 0 && !sh.spent(); i-- {
		if i >= len(sh.best.Streams) {
			continue
		}
		if sh.best.Streams[i].Where != nil {
			cand := sh.clone()
			cand.Streams[i].Where = nil
			if sh.try(cand) {
				progress = true
				continue
			}
		}
	}
	return progress
}

func (sh *shrinker) dropColumns() bool {
	progress := false
	for ti := len(sh.best.Schema.Tables) - 1; ti >= 0; ti-- {
		for ci := len(sh.best.Schema.Tables[ti].Columns) - 1; ci >= 0 && !sh.spent(); ci-- {
			if ti >= len(sh.best.Schema.Tables) || ci >= len(sh.best.Schema.Tables[ti].Columns) {
				continue
			}
			cand := sh.clone()
			dropColumn(&cand.Schema, ti, ci)
			progress = sh.try(cand) || progress
		}
	}
	return progress
}

// dropSwitches turns off one table or column setting at a time.
func (sh *shrinker) dropSwitches() bool {
	progress := false
	tableSwitches := []func(*schema.Table) bool{
		func(t *schema.Table) bool { was := t.Realtime; t.Realtime = false; return was },
		func(t *schema.Table) bool { was := t.Junction; t.Junction = false; return was },
		func(t *schema.Table) bool { was := t.IDType != ""; t.IDType = ""; return was },
		func(t *schema.Table) bool { was := t.Permissions != nil; t.Permissions = nil; return was },
		func(t *schema.Table) bool {
			was := t.OwnerColumn != ""
			t.OwnerColumn, t.Permissions = "", nil
			return was
		},
	}
	columnSwitches := []func(*schema.Column) bool{
		func(c *schema.Column) bool { was := c.Required; c.Required = false; return was },
		func(c *schema.Column) bool { was := c.Unique; c.Unique = false; return was },
		func(c *schema.Column) bool { was := c.Index; c.Index = false; return was },
		func(c *schema.Column) bool { was := c.Searchable; c.Searchable = false; return was },
		func(c *schema.Column) bool { was := c.HTML; c.HTML = false; return was },
		func(c *schema.Column) bool { was := c.Default != nil; c.Default = nil; return was },
		func(c *schema.Column) bool {
			was := c.Min != nil || c.Max != nil || c.MinLength != nil || c.MaxLength != nil
			c.Min, c.Max, c.MinLength, c.MaxLength = nil, nil, nil, nil
			return was
		},
		func(c *schema.Column) bool {
			was := c.Relation != "" || c.ReverseRelation != ""
			c.Relation, c.ReverseRelation = "", ""
			return was
		},
		func(c *schema.Column) bool {
			was := len(c.Values) > 1
			if was {
				c.Values = c.Values[:1]
			}
			return was
		},
	}
	for ti := range sh.best.Schema.Tables {
		for _, sw := range tableSwitches {
			if sh.spent() || ti >= len(sh.best.Schema.Tables) {
				return progress
			}
			cand := sh.clone()
			if sw(&cand.Schema.Tables[ti]) {
				progress = sh.try(cand) || progress
			}
		}
		for ci := range sh.best.Schema.Tables[ti].Columns {
			for _, sw := range columnSwitches {
				if sh.spent() || ti >= len(sh.best.Schema.Tables) || ci >= len(sh.best.Schema.Tables[ti].Columns) {
					return progress
				}
				cand := sh.clone()
				if sw(&cand.Schema.Tables[ti].Columns[ci]) {
					progress = sh.try(cand) || progress
				}
			}
		}
	}
	return progress
}

// simplifyOps drops one condition, parameter, item or field of a request
// at a time.
func (sh *shrinker) simplifyOps() bool {
	progress := false
	for oi := range sh.best.Ops {
		for _, cut := range []func(*op, int) bool{
			func(o *op, k int) bool { return cutAt(&o.Where, k) },
			func(o *op, k int) bool { return cutAt(&o.Params, k) },
			func(o *op, k int) bool { return len(o.Items) > 1 && cutAt(&o.Items, k) },
			func(o *op, k int) bool {
				if len(o.Items) == 0 {
					return false
				}
				fields := sortedFields(o.Items[0])
				if k >= len(fields) || fields[k] == o.OnConflict {
					return false
				}
				for _, it := range o.Items {
					delete(it, fields[k])
				}
				return true
			},
		} {
			for k := 0; ; k++ {
				if sh.spent() || oi >= len(sh.best.Ops) {
					return progress
				}
				cand := sh.clone()
				if !cut(&cand.Ops[oi], k) {
					break
				}
				if sh.try(cand) {
					progress = true
					k--
				}
			}
		}
	}
	return progress
}

// cutAt removes element k of a list, reporting whether there was one.
func cutAt[T any](list *[]T, k int) bool {
	if k >= len(*list) {
		return false
	}
	*list = append((*list)[:k:k], (*list)[k+1:]...)
	return true
}

func sortedFields(b body) []string {
	var fields []string
	for f := range b {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	return fields
}
