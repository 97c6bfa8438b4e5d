package schemafuzz

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tablesmith/tablesmith/schema"
)

// namePool is where table, column, relation and enum names come from: the
// names most likely to meet the generated SQL. SQL keywords; one-letter
// names; every alias, CTE, column and variable name the statements,
// triggers and functions use (translate/, schema/ddl.go, schema/realtime.go,
// internal/endusers); PostgreSQL's system columns (which the validator
// refuses, so the repair drops them); and names the contract gives a
// meaning (password for password_hash, is_active).
var namePool = strings.Fields(`
	select from where order group by limit offset table user all and or not null true false
	default check primary key references index unique column constraint insert update delete
	values returning with as on in is like ilike case when then else end join lateral union
	distinct having desc asc array cast only any some exists between current_user session_user
	new old excluded count sum avg min max row rows type text json jsonb integer numeric boolean
	a b c d e f g h i j k l m n o p q r s t u v w x y z
	t1 t2 t3 t4 x1 x2 j1 r1 tbl op at seq got lock moved numbered head cut gone mark total data
	next last pruned_through created updated tg_op tg_table_name tg_name tg_when tg_level
	ctid xmin xmax cmin cmax tableoid oid password password_hash is_active email name title
	value key_ record aggregate realtime filter sort fields include search meta`)

// reservedTables are refused as table names by the validator; the
// generator skips them rather than repair them.
var reservedTables = map[string]bool{"auth": true, "docs": true, "openapi": true, "realtime": true}

// pick returns a random element of list.
func pick[T any](r *rand.Rand, list []T) T { return list[r.Intn(len(list))] }

// chance is true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

// genDocument makes a random document that schema.Validate accepts.
func genDocument(r *rand.Rand) schema.Document {
	for {
		d := rawDocument(r)
		if repair(&d) {
			return d
		}
	}
}

// rawDocument makes a random document that may break the rules the
// generator does not keep itself (relation names, reserved columns);
// repair fixes those.
func rawDocument(r *rand.Rand) schema.Document {
	n := 1 + r.Intn(4)
	used := map[string]bool{}
	name := func() string {
		for {
			s := pick(r, namePool)
			if !used[s] && !reservedTables[s] {
				used[s] = true
				return s
			}
		}
	}
	d := schema.Document{Tables: []schema.Table{}}
	for range n {
		t := schema.Table{Name: name(), Columns: []schema.Column{}}
		if chance(r, 0.3) {
			t.IDType = schema.IDUUID
		}
		t.Realtime = chance(r, 0.5)
		d.Tables = append(d.Tables, t)
	}
	// One table may be the auth table: an email column and a password.
	if chance(r, 0.3) {
		t := &d.Tables[r.Intn(len(d.Tables))]
		t.Auth = true
		t.Columns = append(t.Columns, schema.Column{Name: "email", Type: schema.TypeEmail, Required: true, Unique: true})
		pw := "password_hash"
		if chance(r, 0.3) {
			pw = pick(r, namePool)
		}
		t.Columns = append(t.Columns, schema.Column{Name: pw, Type: schema.TypePassword, Required: chance(r, 0.5)})
	}
	for i := range d.Tables {
		t := &d.Tables[i]
		cols := map[string]bool{}
		for _, c := range t.Columns {
			cols[c.Name] = true
		}
		for range r.Intn(6) {
			c := genColumn(r, d, t)
			if cols[c.Name] {
				continue
			}
			cols[c.Name] = true
			t.Columns = append(t.Columns, c)
		}
		genTableRules(r, d, t)
	}
	// A junction: two required references, marked or not.
	if len(d.Tables) >= 2 && chance(r, 0.25) {
		a, b := d.Tables[r.Intn(len(d.Tables))], d.Tables[r.Intn(len(d.Tables))]
		j := schema.Table{Name: name(), Junction: chance(r, 0.5), Realtime: chance(r, 0.3), Columns: []schema.Column{
			refColumn(name()+"_id", a, true, schema.OnDeleteCascade),
			refColumn(name()+"_id", b, true, pick(r, []string{schema.OnDeleteCascade, schema.OnDeleteRestrict})),
		}}
		if j.Junction && chance(r, 0.5) {
			j.Columns = append(j.Columns, schema.Column{Name: name(), Type: schema.TypeText})
		}
		d.Tables = append(d.Tables, j)
	}
	return d
}

func refColumn(name string, target schema.Table, required bool, onDelete string) schema.Column {
	typ := schema.TypeInteger
	if target.IDType == schema.IDUUID {
		typ = schema.TypeUUID
	}
	return schema.Column{Name: name, Type: typ, Required: required, References: &schema.Reference{Table: target.Name, OnDelete: onDelete}}
}

// columnTypes are the types a user column may have.
var columnTypes = []string{schema.TypeText, schema.TypeInteger, schema.TypeNumber, schema.TypeDecimal, schema.TypeBoolean,
	schema.TypeTimestamp, schema.TypeDate, schema.TypeEmail, schema.TypeURL, schema.TypeUUID, schema.TypeEnum,
	schema.TypeJSON, schema.TypePassword}

func genColumn(r *rand.Rand, d schema.Document, t *schema.Table) schema.Column {
	c := schema.Column{Name: pick(r, namePool), Type: pick(r, columnTypes)}
	if chance(r, 0.25) { // a reference, to any table (itself included)
		target := d.Tables[r.Intn(len(d.Tables))]
		onDelete := pick(r, []string{"", schema.OnDeleteRestrict, schema.OnDeleteCascade, schema.OnDeleteSetNull})
		c = refColumn(c.Name, target, false, onDelete)
		c.Required = onDelete != schema.OnDeleteSetNull && chance(r, 0.2)
		c.Index = chance(r, 0.2)
		return c
	}
	c.Required = chance(r, 0.25)
	if c.Type != schema.TypeJSON && c.Type != schema.TypePassword {
		c.Unique = chance(r, 0.25)
		c.Index = chance(r, 0.2)
	}
	switch c.Type {
	case schema.TypeText, schema.TypeEmail, schema.TypeURL:
		c.Searchable = chance(r, 0.3)
		if chance(r, 0.2) {
			c.MinLength = ptr(r.Intn(3))
		}
		if chance(r, 0.2) {
			c.MaxLength = ptr(5 + r.Intn(40))
		}
		c.HTML = c.Type == schema.TypeText && chance(r, 0.2)
	case schema.TypeEnum:
		c.Searchable = chance(r, 0.3)
		seen := map[string]bool{}
		for range 1 + r.Intn(4) {
			v := pick(r, namePool)
			if !seen[v] {
				seen[v] = true
				c.Values = append(c.Values, v)
			}
		}
	case schema.TypeInteger, schema.TypeNumber, schema.TypeDecimal:
		if chance(r, 0.2) {
			c.Min = ptr(float64(-r.Intn(100)))
		}
		if chance(r, 0.2) {
			c.Max = ptr(float64(r.Intn(1000)))
		}
	case schema.TypePassword:
		if chance(r, 0.3) {
			c.MinLength = ptr(8 + r.Intn(4))
		}
	}
	if c.Type != schema.TypePassword && chance(r, 0.2) {
		c.Default = genDefault(r, c)
	}
	return c
}

// genDefault is a default the column accepts (a value of its type within
// its rules), "now" for a timestamp or date now and then.
func genDefault(r *rand.Rand, c schema.Column) json.RawMessage {
	if (c.Type == schema.TypeTimestamp || c.Type == schema.TypeDate) && chance(r, 0.5) {
		return json.RawMessage(`"now"`)
	}
	v := genValue(r, c, valueOptions{valid: true})
	raw, _ := json.Marshal(v)
	return raw
}

// genTableRules sets permissions and an owner column now and then. The
// fuzzer calls with an API key, which every level but none admits, so the
// rules change the SQL (owner scopes) more than the answers.
func genTableRules(r *rand.Rand, d schema.Document, t *schema.Table) {
	levels := []string{"", schema.LevelPublic, schema.LevelAuthenticated, schema.LevelKey}
	var auth *schema.Table
	for i := range d.Tables {
		if d.Tables[i].Auth {
			auth = &d.Tables[i]
		}
	}
	if auth != nil && chance(r, 0.4) {
		owner := refColumn(pick(r, namePool)+"_by", *auth, false, pick(r, []string{schema.OnDeleteCascade, schema.OnDeleteSetNull}))
		if _, taken := t.Column(owner.Name); !taken {
			t.Columns = append(t.Columns, owner)
			t.OwnerColumn = owner.Name
			levels = append(levels, schema.LevelOwner)
		}
	}
	if chance(r, 0.5) {
		t.Permissions = &schema.Permissions{Read: pick(r, levels), Create: pick(r, levels), Update: pick(r, levels), Delete: pick(r, levels)}
	}
}

func ptr[T any](v T) *T { return &v }

// problemPath reads a problem path of schema.Validate.
var problemPath = regexp.MustCompile(`^tables\[(\d+)\](?:\.columns\[(\d+)\])?(?:\.(.+))?$`)

// repair fixes what Validate reports, a round at a time, and reports
// whether the document became valid: relation names get fresh explicit
// names, and anything else that is wrong is dropped (a flag, a rule, the
// column, the table).
func repair(d *schema.Document) bool {
	fresh := 0
	for range 30 {
		problems := schema.Validate(*d)
		if len(problems) == 0 {
			return true
		}
		paths := make([]string, 0, len(problems))
		for p := range problems {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		// Fix one path per round: indexes stay meaningful.
		m := problemPath.FindStringSubmatch(paths[0])
		if m == nil {
			return false
		}
		ti, _ := strconv.Atoi(m[1])
		if ti >= len(d.Tables) {
			return false
		}
		t := &d.Tables[ti]
		if m[2] == "" {
			fixTable(d, ti, m[3])
			continue
		}
		ci, _ := strconv.Atoi(m[2])
		if ci >= len(t.Columns) {
			return false
		}
		c := &t.Columns[ci]
		fresh++
		switch m[3] {
		case "relation":
			c.Relation = fmt.Sprintf("rel%d", fresh)
		case "reverse_relation":
			c.ReverseRelation = fmt.Sprintf("rev%d", fresh)
		case "default":
			c.Default = nil
		case "unique":
			c.Unique = false
		case "index":
			c.Index = false
		case "searchable":
			c.Searchable = false
		case "references.on_delete":
			c.References.OnDelete = schema.OnDeleteCascade
		default:
			dropColumn(d, ti, ci)
		}
	}
	return false
}

// fixTable fixes a table-level problem at what (auth, junction,
// owner_column, permissions.<op>, name, ...).
func fixTable(d *schema.Document, ti int, what string) {
	t := &d.Tables[ti]
	switch {
	case what == "junction":
		t.Junction = false
	case what == "owner_column" || strings.HasPrefix(what, "permissions"):
		t.OwnerColumn, t.Permissions = "", nil
	case what == "auth":
		t.Auth = false
	default:
		dropTable(d, ti)
	}
}

// dropColumn removes a column and what names it (the owner column).
func dropColumn(d *schema.Document, ti, ci int) {
	t := &d.Tables[ti]
	if t.OwnerColumn == t.Columns[ci].Name {
		t.OwnerColumn, t.Permissions = "", nil
	}
	t.Columns = append(t.Columns[:ci:ci], t.Columns[ci+1:]...)
}

// dropTable removes a table and every column that references it.
func dropTable(d *schema.Document, ti int) {
	name := d.Tables[ti].Name
	d.Tables = append(d.Tables[:ti:ti], d.Tables[ti+1:]...)
	for i := range d.Tables {
		for j := len(d.Tables[i].Columns) - 1; j >= 0; j-- {
			if ref := d.Tables[i].Columns[j].References; ref != nil && ref.Table == name {
				dropColumn(d, i, j)
			}
		}
	}
}
