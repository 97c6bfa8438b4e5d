package schema

import (
	"fmt"
	"strings"
)

// conversion is how the values of a column become another type.
type conversion struct {
	// using renders the new value from the old one; nil when the
	// PostgreSQL type stays the same (the text-like types), so that no
	// ALTER TYPE runs and the table is not rewritten.
	using func(col string) string
	// bad is true for a (non-null) value that cannot become the new type
	// exactly; nil when every value can.
	bad  func(col string) string
	rule string // what every value must be, when bad is set
	// narrowing is set when the new type holds fewer values than the
	// old one; such a change is destructive and needs confirmation.
	narrowing bool
}

// textOf renders a value as text the way the API shows it, so that a
// change to a text-like type keeps what users saw.
func textOf(from string) func(string) string {
	if f := typeOf(from).asText; f != nil {
		return f
	}
	// number: extra_float_digits = 1 (set by the migration) prints the
	// shortest text that reads back as the same double.
	return func(c string) string { return "(" + c + ")::text" }
}

const (
	int64Range = "-9223372036854775808 AND 9223372036854775807"
	// Doubles between these magnitudes (or zero) convert to and from
	// text without overflow or underflow errors.
	doubleRange = "1e-307 AND 1e308"
)

// convert returns how values of type from become type to, or why they
// cannot. Only conversions that keep every value exactly (or refuse the
// rows whose values would change) are offered: each type's entry lists
// the conversions to it (fromText, from).
func convert(from, to string) (conversion, string) {
	if from == to {
		return conversion{}, ""
	}
	// A type that never converts, in the registry's order, so that the
	// same reason is given whichever side it is on.
	for _, t := range columnTypes {
		if t.fixed != "" && (t.Name == from || t.Name == to) {
			return conversion{}, t.fixed
		}
	}
	switch {
	case isTextual(from) && isTextual(to):
		return conversion{}, ""
	case isTextual(to):
		return conversion{using: textOf(from)}, ""
	case isTextual(from):
		return fromText(to)
	}
	if c, ok := typeOf(to).from[from]; ok {
		return c, ""
	}
	return conversion{}, fmt.Sprintf("PostgreSQL has no conversion from %s to %s that keeps every value; add a new column, copy the values, then drop the old one", from, to)
}

func castTo(pg string) func(string) string {
	return func(c string) string { return "(" + c + ")::" + pg }
}

// matches is the SQL condition that c matches a POSIX pattern.
func matches(c, pattern string) string { return c + " ~ " + QuoteLiteral(pattern) }

// fromText converts text-like values that are written the way the API
// accepts the new type; every other value is reported, none is guessed.
func fromText(to string) (conversion, string) {
	if c := typeOf(to).fromText; c != nil {
		return *c, ""
	}
	return conversion{}, fmt.Sprintf("text values are not converted to %s; add a new column, copy the values, then drop the old one", to)
}

// looser reports whether every value allowed by a's check is allowed by
// b's (same type), so existing rows need no check: enum values added,
// bounds widened or removed.
func looser(a, b Column) bool {
	if a.Type != b.Type {
		return false
	}
	if typeOf(a.Type).Traits.Enumerated {
		allowed := map[string]bool{}
		for _, v := range b.Values {
			allowed[v] = true
		}
		for _, v := range a.Values {
			if !allowed[v] {
				return false
			}
		}
	}
	lowerOK := func(old, new *float64) bool { return new == nil || (old != nil && *new <= *old) }
	upperOK := func(old, new *float64) bool { return new == nil || (old != nil && *new >= *old) }
	intf := func(p *int) *float64 {
		if p == nil {
			return nil
		}
		f := float64(*p)
		return &f
	}
	return lowerOK(a.Min, b.Min) && upperOK(a.Max, b.Max) &&
		lowerOK(intf(positive(a.MinLength)), intf(positive(b.MinLength))) && upperOK(intf(a.MaxLength), intf(b.MaxLength))
}

// positive treats min_length 0 as no minimum, as checkExpr does.
func positive(p *int) *int {
	if p == nil || *p <= 0 {
		return nil
	}
	return p
}

// alteration is what alterColumn works out once about a surviving
// column, for each of its steps to read.
type alteration struct {
	ot, nt Table
	oc, nc Column
	conv   conversion
	why    string // set when no conversion keeps every value
	// typeChanged is any change of type; retype only one that runs
	// ALTER TYPE (text-like types share one PostgreSQL type).
	typeChanged, retype bool
	oldChk, newChk      string
	// checkChanged and defaultChanged are also set when an unchanged
	// check or default must be rebuilt for the new type.
	checkChanged   bool
	oldDef, newDef string
	defaultChanged bool
	fk             referenceChange
	// plainOld and plainNew say whether a plain index is wanted before
	// and after; trgmNew whether a trigram index is wanted after.
	plainOld, plainNew, trgmNew bool
	alterTable                  string // "ALTER TABLE <new name> "
}

// referenceChange is how a column's foreign key changes.
type referenceChange struct {
	old, new *Reference
	// pubTarget is the published name of the table the new reference
	// points to, or "" when that table is new.
	pubTarget                      string
	targetChanged, onDeleteChanged bool
	drop, add                      bool
}

// alterColumn plans the changes of a surviving column. Prechecks read the
// published table and column; statements use the new names. Statements
// loosen the old column, convert its type, then tighten it again, in that
// order, so that each statement's step (see stepEarly) finds what it needs.
func (d *differ) alterColumn(ot, nt Table, oc, nc Column) {
	if typeOf(oc.Type).Traits.ReadOnly && typeOf(nc.Type).Traits.ReadOnly {
		return
	}
	a := d.alterationOf(ot, nt, oc, nc)
	c := d.alterChange(a)
	if c == nil || c.Unsupported != "" {
		return
	}
	d.checkExistingRows(c, a)
	d.loosenColumn(c, a)
	d.retypeColumn(c, a)
	d.tightenColumn(c, a)
}

func (d *differ) alterationOf(ot, nt Table, oc, nc Column) alteration {
	a := alteration{ot: ot, nt: nt, oc: oc, nc: nc}
	a.conv, a.why = convert(oc.Type, nc.Type)
	a.typeChanged = oc.Type != nc.Type
	a.retype = a.conv.using != nil
	a.oldChk, a.newChk = checkExprOn(oc, "$v"), checkExprOn(nc, "$v")
	a.checkChanged = a.oldChk != a.newChk || (a.retype && a.newChk != "")
	a.oldDef, a.newDef = defaultLiteral(oc), defaultLiteral(nc)
	a.defaultChanged = a.oldDef != a.newDef || (a.retype && a.oldDef != "")
	a.fk = d.referenceChangeOf(oc.References, nc.References)
	a.plainOld, a.plainNew = d.g.wantsIndex(oc, indexPlain), d.g.wantsIndex(nc, indexPlain)
	a.trgmNew = d.g.wantsIndex(nc, indexTrigram)
	a.alterTable = "ALTER TABLE " + d.g.table(nt.Name) + " "
	return a
}

// referenceChangeOf compares two references by the published name of
// their target, so that a reference follows its table's rename.
func (d *differ) referenceChangeOf(was, is *Reference) referenceChange {
	r := referenceChange{old: was, new: is}
	if is != nil {
		if t, ok := d.oldOf[is.Table]; ok {
			r.pubTarget = t.Name
		}
	}
	r.targetChanged = is != nil && (was == nil || r.pubTarget == "" || r.pubTarget != was.Table)
	r.onDeleteChanged = is != nil && was != nil && !r.targetChanged && onDeleteSQL(was) != onDeleteSQL(is)
	changed := r.targetChanged || r.onDeleteChanged
	r.drop = was != nil && (is == nil || changed)
	r.add = is != nil && (was == nil || changed)
	return r
}

// alterChange adds the change of a surviving column and returns it, or
// nil when nothing of it reaches the database (a metadata change, if
// any, is added instead). An unsupported change is returned marked so.
func (d *differ) alterChange(a alteration) *Change {
	oc, nc, nt := a.oc, a.nc, a.nt
	what := a.describe()
	if len(what) == 0 {
		if m := columnMetadataChanges(oc, nc); m != "" {
			d.change(Change{Kind: ChangeMetadata, Table: nt.Name, Column: nc.Name,
				Description: fmt.Sprintf("change %s of %s.%s (no SQL)", m, nt.Name, nc.Name)})
		}
		return nil
	}
	c := d.change(Change{Kind: ChangeAlterColumn, Table: nt.Name, Column: nc.Name, Destructive: a.conv.narrowing,
		Description: fmt.Sprintf("change column %s.%s: %s", nt.Name, nc.Name, strings.Join(what, "; "))})
	if a.why != "" {
		c.Unsupported = a.why
		return c
	}
	if a.conv.narrowing {
		c.Description += fmt.Sprintf(" (narrowing: %s holds fewer values than %s)", nc.Type, oc.Type)
	}
	return c
}

// describe lists what changes of the column, in words, in a fixed order.
func (a alteration) describe() []string {
	oc, nc := a.oc, a.nc
	var what []string
	for _, w := range []string{
		a.describeType(),
		toggled(oc.Required, nc.Required, "now required", "no longer required"),
		toggled(oc.Unique, nc.Unique, "now unique", "no longer unique"),
		a.describeDefault(),
		a.describeRule(),
		a.fk.describe(),
		toggled(oc.Index, nc.Index, "index added", "index removed"),
		toggled(oc.Searchable, nc.Searchable, "now searchable", "no longer searchable"),
	} {
		if w != "" {
			what = append(what, w)
		}
	}
	return what
}

// toggled names a flag that was turned on or off, or is "" when it stayed.
func toggled(was, is bool, on, off string) string {
	switch {
	case was == is:
		return ""
	case is:
		return on
	}
	return off
}

func (a alteration) describeType() string {
	if !a.typeChanged {
		return ""
	}
	return fmt.Sprintf("type %s → %s", a.oc.Type, a.nc.Type)
}

func (a alteration) describeDefault() string {
	switch {
	case a.oldDef == a.newDef:
		return ""
	case a.newDef == "":
		return "default removed"
	}
	return "default " + strings.TrimSpace(string(a.nc.Default))
}

func (a alteration) describeRule() string {
	was, is := describeRule(a.oc), describeRule(a.nc)
	if was == is {
		return ""
	}
	return fmt.Sprintf("rule %s → %s", orNone(was), orNone(is))
}

func (r referenceChange) describe() string {
	switch {
	case r.old != nil && r.new == nil:
		return "no longer references " + r.old.Table
	case r.targetChanged:
		return fmt.Sprintf("references %s (on delete %s)", r.new.Table, strings.ToLower(onDeleteSQL(r.new)))
	case r.onDeleteChanged:
		return fmt.Sprintf("on delete %s → %s", strings.ToLower(onDeleteSQL(r.old)), strings.ToLower(onDeleteSQL(r.new)))
	}
	return ""
}

// Checks of the existing rows, on the published names. Every check of a
// converted value is guarded so that a value the conversion cannot take
// is reported once, by the conversion's own check.

// ref is the published column as read from the row alias.
func (a alteration) ref(alias string) string { return alias + "." + QuoteIdent(a.oc.Name) }

// value is the published column's value converted to the new type.
func (a alteration) value(alias string) string {
	if a.retype {
		return a.conv.using(a.ref(alias))
	}
	return a.ref(alias)
}

// guard makes cond false on a row whose value the conversion refuses.
func (a alteration) guard(alias, cond string) string {
	if a.conv.bad == nil {
		return cond
	}
	return "CASE WHEN " + a.conv.bad(a.ref(alias)) + " THEN false ELSE " + cond + " END"
}

// newFormat is the format condition of the new type on the converted
// value, when the type changes to one whose format only the API checks.
func (a alteration) newFormat() string {
	if !a.typeChanged {
		return ""
	}
	return FormatSQL(a.nc.Type, a.value("t"))
}

// checkExistingRows adds the prechecks of the column, in a fixed order.
func (d *differ) checkExistingRows(c *Change, a alteration) {
	d.precheckType(c, a)
	d.precheckRequired(c, a)
	d.precheckUnique(c, a)
	d.precheckIndexedLength(c, a)
	d.precheckRule(c, a)
	d.precheckReference(c, a)
}

// precheckType checks that every value survives the conversion and, for
// e-mail and URL, has the new type's format.
func (d *differ) precheckType(c *Change, a alteration) {
	if a.conv.bad != nil {
		d.precheck(c, a.ot, a.nc.Name, a.conv.rule, a.ref("t")+" IS NOT NULL AND ("+a.conv.bad(a.ref("t"))+")", 0)
	}
	if f := a.newFormat(); f != "" {
		d.precheck(c, a.ot, a.nc.Name, "every value is a valid "+typeOf(a.nc.Type).format.rule,
			a.ref("t")+" IS NOT NULL AND "+a.guard("t", "NOT "+f), 0)
	}
}

func (d *differ) precheckRequired(c *Change, a alteration) {
	if a.nc.Required && !a.oc.Required {
		d.precheck(c, a.ot, a.nc.Name, "every row has a value (the column becomes required)", a.ref("t")+" IS NULL", 0)
	}
}

// precheckUnique checks for duplicates when the column becomes unique,
// or stays unique through a conversion that could make values equal.
func (d *differ) precheckUnique(c *Change, a alteration) {
	if !a.nc.Unique || (a.oc.Unique && !a.retype) {
		return
	}
	valid := a.ref("u") + " IS NOT NULL"
	if a.conv.bad != nil {
		valid += " AND NOT (" + a.conv.bad(a.ref("u")) + ")"
	}
	groups := " FROM " + d.g.table(a.ot.Name) + " AS u WHERE " + valid + " GROUP BY " + a.value("u") + " HAVING count(*) > 1"
	// Counting the rows of duplicated values needs one scan; the
	// examples (only on failure) find those rows again.
	d.precheckCounted(c, a.ot, a.nc.Name, "no two rows share a value (the column becomes unique)",
		a.ref("t")+" IS NOT NULL AND "+a.guard("t", a.value("t")+" IN (SELECT "+a.value("u")+groups+")"),
		"SELECT coalesce(sum(n), 0) FROM (SELECT count(*) AS n"+groups+") AS d", 0)
}

// precheckIndexedLength checks that every value fits the index a text or
// URL column gets when it becomes unique or indexed, or changes type while
// it is one (MaxIndexedLength), so that generate names the rows instead
// of failing to build the index. Values of other types are short: e-mails
// and enum values have their own bounds, and numbers, dates and UUIDs
// print in a few dozen characters.
//
// It takes no lock: adding index: true stays a change that never makes
// writes wait (the index is built concurrently after the commit). A long
// value written meanwhile through the previous version still fails the
// unique index's build in the transaction (generate changes nothing) or
// the background build (reported as failed).
func (d *differ) precheckIndexedLength(c *Change, a alteration) {
	long := isTextual(a.oc.Type) || a.oc.Type == TypeJSON
	if !long || (a.nc.Type != TypeText && a.nc.Type != TypeURL) || !indexedValue(&a.nc) || (indexedValue(&a.oc) && !a.typeChanged) {
		return
	}
	cond := a.ref("t") + " IS NOT NULL AND " + a.guard("t", fmt.Sprintf("char_length(%s) > %d", a.value("t"), MaxIndexedLength))
	d.precheckUnlocked(c, a.ot, a.nc.Name, fmt.Sprintf("every value is at most %d characters (the values of a unique or indexed column are kept in an index)", MaxIndexedLength),
		cond, d.countWhere(a.ot, cond), 0)
}

// precheckRule checks the new check constraint, unless it allows every
// value the old one did.
func (d *differ) precheckRule(c *Change, a alteration) {
	if !a.checkChanged || a.newChk == "" || looser(a.oc, a.nc) {
		return
	}
	cond := "NOT coalesce(" + checkExprOn(a.nc, a.value("t")) + ", true)"
	if f := a.newFormat(); f != "" {
		// A value that is no e-mail or URL at all is reported once,
		// by the format check.
		cond = "CASE WHEN NOT coalesce(" + f + ", true) THEN false ELSE " + cond + " END"
	}
	d.precheck(c, a.ot, a.nc.Name, "every value follows the new rule: "+describeRule(a.nc), a.guard("t", cond), 0)
}

// precheckReference checks that every value names a row of the new
// target; a target that is new has no rows, so the column must be empty.
func (d *differ) precheckReference(c *Change, a alteration) {
	fk := a.fk
	switch {
	case !fk.targetChanged:
	case fk.pubTarget != "":
		d.precheck(c, a.ot, a.nc.Name, "every value is the id of a row of "+fk.new.Table,
			a.ref("t")+" IS NOT NULL AND "+a.guard("t", `NOT EXISTS (SELECT 1 FROM `+d.g.table(fk.pubTarget)+` AS r WHERE r."id" = `+a.value("t")+")"), 0, fk.pubTarget)
	default:
		d.precheck(c, a.ot, a.nc.Name, "the column is empty, because the table it now references ("+fk.new.Table+") is new", a.ref("t")+" IS NOT NULL", 0)
	}
}

// Statements, on the new names.

func (a alteration) col() string { return QuoteIdent(a.nc.Name) }

// name is the quoted name of one of the column's constraints.
func (a alteration) name(suffix string) string {
	return QuoteIdent(ConstraintName(a.nt.Name, a.nc.Name, suffix))
}

// loosenColumn drops what goes or changes: the foreign key, then the
// check, unique constraint, indexes, NOT NULL and default.
func (d *differ) loosenColumn(c *Change, a alteration) {
	if a.fk.drop {
		d.emit(c, stepDropReference, a.alterTable+"DROP CONSTRAINT IF EXISTS "+a.name("fkey"))
	}
	if a.checkChanged && a.oldChk != "" {
		d.emit(c, stepLoosen, a.alterTable+"DROP CONSTRAINT IF EXISTS "+a.name("check"))
	}
	if a.oc.Unique && !a.nc.Unique {
		d.emit(c, stepLoosen, a.alterTable+"DROP CONSTRAINT IF EXISTS "+a.name("key"))
	}
	d.dropIndexes(c, a)
	d.dropRequired(c, a)
	if a.oldDef != "" && a.defaultChanged {
		d.emit(c, stepLoosen, a.alterTable+"ALTER COLUMN "+a.col()+" DROP DEFAULT")
	}
}

func (d *differ) dropIndexes(c *Change, a alteration) {
	if a.plainOld && !a.plainNew {
		// Also the column-only index of a schema generated before the
		// (column, id) indexes, if it is still there.
		for _, kind := range []string{indexPlain, indexLegacyPlain} {
			d.emit(c, stepLoosen, "DROP INDEX IF EXISTS "+d.g.table(ConstraintName(a.nt.Name, a.nc.Name, kind)))
		}
	}
	if a.oc.Searchable && !a.nc.Searchable {
		d.emit(c, stepLoosen, "DROP INDEX IF EXISTS "+d.g.table(ConstraintName(a.nt.Name, a.nc.Name, indexTrigram)))
	}
}

func (d *differ) dropRequired(c *Change, a alteration) {
	if !a.oc.Required || a.nc.Required {
		return
	}
	d.emit(c, stepLoosen, a.alterTable+"ALTER COLUMN "+a.col()+" DROP NOT NULL")
	// The helper check of an earlier "now required" whose after-commit
	// step never ran would keep enforcing it.
	d.emit(c, stepLoosen, a.alterTable+"DROP CONSTRAINT IF EXISTS "+a.name("not_null"))
}

// retypeColumn converts the values, which rewrites the table.
func (d *differ) retypeColumn(c *Change, a alteration) {
	if !a.retype {
		return
	}
	d.emit(c, stepRetype, a.alterTable+"ALTER COLUMN "+a.col()+" TYPE "+typeOf(a.nc.Type).PG+" USING "+a.conv.using(a.col()))
	c.RewritesTable = true
}

// tightenColumn adds what is new or changed: the default, then the
// unique constraint, check, NOT NULL, foreign key and indexes.
func (d *differ) tightenColumn(c *Change, a alteration) {
	if a.newDef != "" && a.defaultChanged {
		d.emit(c, stepDefault, a.alterTable+"ALTER COLUMN "+a.col()+" SET DEFAULT "+a.newDef)
	}
	d.addUnique(c, a)
	if a.checkChanged && a.newChk != "" {
		d.emit(c, stepCheck, a.alterTable+"ADD CONSTRAINT "+a.name("check")+" CHECK ("+checkExpr(a.nc)+") NOT VALID")
		d.later(c, a.alterTable+"VALIDATE CONSTRAINT "+a.name("check"))
	}
	d.addRequired(c, a)
	if a.fk.add {
		d.emit(c, stepReference, d.g.ForeignKey(a.nt.Name, a.nc)+" NOT VALID")
		d.later(c, a.alterTable+"VALIDATE CONSTRAINT "+a.name("fkey"))
	}
	d.addIndexes(c, a)
}

func (d *differ) addUnique(c *Change, a alteration) {
	if !a.nc.Unique || a.oc.Unique {
		return
	}
	build := "CREATE UNIQUE INDEX " + a.name("key") + " ON " + d.g.table(a.nt.Name) + " (" + a.col() + ")"
	// On a column that keeps its name and type the index is built
	// first, under the SHARE lock alone, so reads go on meanwhile.
	step := stepUnique
	if !a.retype && a.ot.Name == a.nt.Name && a.oc.Name == a.nc.Name {
		step = stepEarly
	}
	d.emit(c, step, build)
	d.emit(c, stepUnique, a.alterTable+"ADD CONSTRAINT "+a.name("key")+" UNIQUE USING INDEX "+a.name("key"))
}

// addRequired makes the column NOT NULL without a long exclusive lock.
func (d *differ) addRequired(c *Change, a alteration) {
	if !a.nc.Required || a.oc.Required {
		return
	}
	// SET NOT NULL scans the table under an exclusive lock unless a
	// validated check already proves it; so: check NOT VALID now,
	// VALIDATE after commit (no exclusive lock), then SET NOT NULL
	// (instant) and drop the helper.
	nn := a.name("not_null")
	d.emit(c, stepCheck, a.alterTable+"ADD CONSTRAINT "+nn+" CHECK ("+a.col()+" IS NOT NULL) NOT VALID")
	d.later(c, a.alterTable+"VALIDATE CONSTRAINT "+nn)
	d.later(c, a.alterTable+"ALTER COLUMN "+a.col()+" SET NOT NULL")
	d.later(c, a.alterTable+"DROP CONSTRAINT "+nn)
}

func (d *differ) addIndexes(c *Change, a alteration) {
	if a.plainNew && !a.plainOld {
		d.later(c, d.g.createIndex(a.nt.Name, a.nc, indexPlain, true))
	}
	if a.trgmNew && !a.oc.Searchable {
		d.later(c, d.g.createIndex(a.nt.Name, a.nc, indexTrigram, true))
	}
}

// addColumn plans a new column of a table that may hold rows: the column
// first, then its constraints the way alterColumn adds them.
func (d *differ) addColumn(ot, nt Table, nc Column) {
	c := d.change(Change{Kind: ChangeAddColumn, Table: nt.Name, Column: nc.Name,
		Description: fmt.Sprintf("add column %s.%s (%s)", nt.Name, nc.Name, nc.Type)})
	if nc.RenamedFrom != "" {
		c.Description += fmt.Sprintf("; renamed_from %q matched nothing, so it starts empty", nc.RenamedFrom)
	}
	alter := "ALTER TABLE " + d.g.table(nt.Name) + " "
	col := QuoteIdent(nc.Name)
	name := func(suffix string) string { return QuoteIdent(ConstraintName(nt.Name, nc.Name, suffix)) }
	// fill is what the existing rows get: the default, or else the
	// one-off backfill, which is dropped again in the same transaction so
	// that new records do not get it.
	def, fill := defaultLiteral(nc), defaultLiteral(nc)
	if fill == "" && !isNullJSON(nc.Backfill) {
		fill = defaultLiteral(*nc.withDefault(nc.Backfill))
	}
	add := alter + "ADD COLUMN " + col + " " + typeOf(nc.Type).PG
	if fill != "" {
		add += " DEFAULT " + fill
	}
	if nc.Required {
		add += " NOT NULL"
	}
	d.emit(c, stepCreate, add)
	if fill != def {
		d.emit(c, stepCreate, alter+"ALTER COLUMN "+col+" DROP DEFAULT")
		c.Description += "; existing rows get " + fill + " once (backfill)"
	}
	if nc.Required && fill == "" {
		c.Description += "; existing rows would have no value, so the table must be empty"
		d.precheck(c, ot, nc.Name, "the table is empty (existing rows would have no value for a new required column without a default or backfill)", "true", 0)
	}
	if nc.Unique {
		if fill != "" {
			d.precheck(c, ot, nc.Name, "the table has at most one row (every existing row would get the same default, and the column is unique)", "true", 1)
		}
		d.emit(c, stepUnique, "CREATE UNIQUE INDEX "+name("key")+" ON "+d.g.table(nt.Name)+" ("+col+")")
		d.emit(c, stepUnique, alter+"ADD CONSTRAINT "+name("key")+" UNIQUE USING INDEX "+name("key"))
	}
	if chk := checkExpr(nc); chk != "" {
		d.emit(c, stepCheck, alter+"ADD CONSTRAINT "+name("check")+" CHECK ("+chk+") NOT VALID")
		d.later(c, alter+"VALIDATE CONSTRAINT "+name("check"))
	}
	if r := nc.References; r != nil {
		if fill != "" {
			if target, ok := d.oldOf[r.Table]; ok {
				d.precheck(c, ot, nc.Name, fmt.Sprintf("the table is empty, or the value %s is the id of a row of %s (every existing row gets it)", fill, r.Table),
					`NOT EXISTS (SELECT 1 FROM `+d.g.table(target.Name)+` AS r WHERE r."id" = `+fill+")", 0, target.Name)
			} else {
				d.precheck(c, ot, nc.Name, "the table is empty (the default would reference a row of the new table "+r.Table+")", "true", 0)
			}
		}
		d.emit(c, stepReference, d.g.ForeignKey(nt.Name, nc)+" NOT VALID")
		d.later(c, alter+"VALIDATE CONSTRAINT "+name("fkey"))
	}
	for _, kind := range []string{indexPlain, indexTrigram} {
		if d.g.wantsIndex(nc, kind) {
			d.later(c, d.g.createIndex(nt.Name, nc, kind, true))
		}
	}
}

// columnMetadataChanges names the column keys that changed but live only
// in the document and the validators.
func columnMetadataChanges(a, b Column) string {
	var what []string
	if a.Description != b.Description {
		what = append(what, "description")
	}
	if a.HTML != b.HTML {
		what = append(what, "html")
	}
	if a.Relation != b.Relation || a.ReverseRelation != b.ReverseRelation {
		what = append(what, "relation names")
	}
	if a.Pattern != b.Pattern {
		what = append(what, "pattern (checked on writes from now on; existing values are not checked)")
	}
	if typeOf(a.Type).Traits.Secret && (!jsonEqual(a.MinLength, b.MinLength) || !jsonEqual(a.MaxLength, b.MaxLength)) {
		what = append(what, "password length (checked when a password is set)")
	}
	return strings.Join(what, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
