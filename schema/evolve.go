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
	switch from {
	case TypeDate:
		return func(c string) string { return "to_char(" + c + ", 'YYYY-MM-DD')" }
	case TypeTimestamp:
		return func(c string) string {
			return "to_char((" + c + `) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
		}
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
// rows whose values would change) are offered.
func convert(from, to string) (conversion, string) {
	switch {
	case from == to:
		return conversion{}, ""
	case from == TypePassword || to == TypePassword:
		return conversion{}, "password columns hold only hashes: they cannot become another type, and no other type can become one; add a new column instead"
	case from == TypePassthrough || to == TypePassthrough:
		return conversion{}, "columns of an existing database are not altered"
	case isTextual(from) && isTextual(to):
		return conversion{}, ""
	case isTextual(to):
		return conversion{using: textOf(from)}, ""
	case isTextual(from):
		return fromText(to)
	}
	switch from + ">" + to {
	case TypeInteger + ">" + TypeNumber:
		return conversion{using: castTo("double precision"),
			bad:  func(c string) string { return "abs(" + c + ") > 9007199254740992" },
			rule: "every value is within ±2^53, where a number (double precision) is exact"}, ""
	case TypeInteger + ">" + TypeDecimal:
		return conversion{using: castTo("numeric")}, ""
	case TypeNumber + ">" + TypeInteger:
		return conversion{using: castTo("bigint"), narrowing: true,
			bad: func(c string) string {
				return c + " IN ('NaN', 'Infinity', '-Infinity') OR " + c + " <> trunc(" + c + ") OR " + c +
					" < -9223372036854775808 OR " + c + " >= 9223372036854775807"
			},
			rule: "every value is a whole number within the integer range"}, ""
	case TypeNumber + ">" + TypeDecimal:
		return conversion{using: func(c string) string { return "(" + c + ")::text::numeric" },
			bad:  func(c string) string { return c + " IN ('NaN', 'Infinity', '-Infinity')" },
			rule: "every value is a finite number"}, ""
	case TypeDecimal + ">" + TypeInteger:
		return conversion{using: castTo("bigint"), narrowing: true,
			bad: func(c string) string {
				return c + " = 'NaN' OR " + c + " <> trunc(" + c + ") OR " + c + " NOT BETWEEN " + int64Range
			},
			rule: "every value is a whole number within the integer range"}, ""
	case TypeDecimal + ">" + TypeNumber:
		return conversion{using: castTo("double precision"), narrowing: true,
			bad: func(c string) string {
				return "CASE WHEN " + c + " = 'NaN' THEN true WHEN " + c + " = 0 OR abs(" + c + ") BETWEEN " + doubleRange +
					" THEN (" + c + ")::float8::text::numeric <> " + c + " ELSE true END"
			},
			rule: "every value fits a number (double precision) exactly"}, ""
	case TypeDate + ">" + TypeTimestamp:
		return conversion{using: func(c string) string { return "(" + c + ")::timestamp AT TIME ZONE 'UTC'" }}, ""
	case TypeTimestamp + ">" + TypeDate:
		return conversion{using: func(c string) string { return "((" + c + ") AT TIME ZONE 'UTC')::date" }, narrowing: true,
			bad:  func(c string) string { return "((" + c + ") AT TIME ZONE 'UTC')::time <> '00:00'" },
			rule: "every value is at midnight UTC"}, ""
	}
	return conversion{}, fmt.Sprintf("PostgreSQL has no conversion from %s to %s that keeps every value; add a new column, copy the values, then drop the old one", from, to)
}

func castTo(pg string) func(string) string {
	return func(c string) string { return "(" + c + ")::" + pg }
}

// fromText converts text-like values that are written the way the API
// accepts the new type; every other value is reported, none is guessed.
func fromText(to string) (conversion, string) {
	matches := func(c, pattern string) string { return c + " ~ " + QuoteLiteral(pattern) }
	switch to {
	case TypeInteger:
		return conversion{using: castTo("bigint"), narrowing: true,
			bad: func(c string) string {
				return "CASE WHEN " + matches(c, integerPattern) + " THEN (" + c + ")::numeric NOT BETWEEN " + int64Range + " ELSE true END"
			},
			rule: "every value is a whole number (digits only) within the integer range"}, ""
	case TypeNumber:
		return conversion{using: castTo("double precision"), narrowing: true,
			bad: func(c string) string {
				n := "(" + c + ")::numeric"
				return "CASE WHEN NOT " + matches(c, numberPattern) + " THEN true WHEN " + n + " = 0 OR abs(" + n + ") BETWEEN " + doubleRange +
					" THEN " + n + "::float8::text::numeric <> " + n + " ELSE true END"
			},
			rule: "every value is a number that double precision holds exactly"}, ""
	case TypeDecimal:
		return conversion{using: castTo("numeric"), narrowing: true,
			bad:  func(c string) string { return "NOT " + matches(c, numberPattern) },
			rule: "every value is a decimal number"}, ""
	case TypeBoolean:
		return conversion{using: castTo("boolean"), narrowing: true,
			bad:  func(c string) string { return c + " NOT IN ('true', 'false')" },
			rule: "every value is true or false"}, ""
	case TypeUUID:
		return conversion{using: castTo("uuid"), narrowing: true,
			bad:  func(c string) string { return "NOT " + matches(c, uuidPattern) },
			rule: "every value is a UUID"}, ""
	case TypeDate:
		// A date is valid when the first of its month plus its day
		// minus one prints as the same text: no cast that could fail.
		return conversion{using: castTo("date"), narrowing: true,
			bad: func(c string) string {
				return "CASE WHEN " + matches(c, datePattern) + " AND left(" + c + ", 4) <> '0000' THEN to_char((left(" + c + ", 7) || '-01')::date + (substr(" + c +
					", 9, 2)::int - 1), 'YYYY-MM-DD') <> " + c + " ELSE true END"
			},
			rule: "every value is a date written YYYY-MM-DD"}, ""
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
	if a.Type == TypeEnum {
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

// alterColumn plans the changes of a surviving column. Prechecks read the
// published table and column; statements use the new names.
func (d *differ) alterColumn(ot, nt Table, oc, nc Column) {
	if oc.Type == TypePassthrough && nc.Type == TypePassthrough {
		return
	}
	conv, why := convert(oc.Type, nc.Type)
	typeChanged := oc.Type != nc.Type
	retype := conv.using != nil
	oldChk, newChk := checkExprOn(oc, "$v"), checkExprOn(nc, "$v")
	checkChanged := oldChk != newChk || (retype && newChk != "")
	oldDef, newDef := defaultLiteral(oc), defaultLiteral(nc)
	defaultChanged := oldDef != newDef || (retype && oldDef != "")
	fkOld, fkNew := oc.References, nc.References
	pubTarget := ""
	if fkNew != nil {
		if t, ok := d.oldOf[fkNew.Table]; ok {
			pubTarget = t.Name
		}
	}
	targetChanged := fkNew != nil && (fkOld == nil || pubTarget == "" || pubTarget != fkOld.Table)
	onDeleteChanged := fkNew != nil && fkOld != nil && !targetChanged && onDeleteSQL(fkOld) != onDeleteSQL(fkNew)
	fkDrop := fkOld != nil && (fkNew == nil || targetChanged || onDeleteChanged)
	fkAdd := fkNew != nil && (fkOld == nil || targetChanged || onDeleteChanged)
	plainOld, plainNew := d.g.wantsIndex(oc, indexPlain), d.g.wantsIndex(nc, indexPlain)
	trgmNew := d.g.wantsIndex(nc, indexTrigram)

	var what []string
	if typeChanged {
		what = append(what, fmt.Sprintf("type %s → %s", oc.Type, nc.Type))
	}
	if oc.Required != nc.Required {
		what = append(what, map[bool]string{true: "now required", false: "no longer required"}[nc.Required])
	}
	if oc.Unique != nc.Unique {
		what = append(what, map[bool]string{true: "now unique", false: "no longer unique"}[nc.Unique])
	}
	if oldDef != newDef {
		if newDef == "" {
			what = append(what, "default removed")
		} else {
			what = append(what, "default "+strings.TrimSpace(string(nc.Default)))
		}
	}
	if describeRule(oc) != describeRule(nc) {
		what = append(what, fmt.Sprintf("rule %s → %s", orNone(describeRule(oc)), orNone(describeRule(nc))))
	}
	switch {
	case fkOld != nil && fkNew == nil:
		what = append(what, "no longer references "+fkOld.Table)
	case targetChanged:
		what = append(what, fmt.Sprintf("references %s (on delete %s)", fkNew.Table, strings.ToLower(onDeleteSQL(fkNew))))
	case onDeleteChanged:
		what = append(what, fmt.Sprintf("on delete %s → %s", strings.ToLower(onDeleteSQL(fkOld)), strings.ToLower(onDeleteSQL(fkNew))))
	}
	if oc.Index != nc.Index {
		what = append(what, map[bool]string{true: "index added", false: "index removed"}[nc.Index])
	}
	if oc.Searchable != nc.Searchable {
		what = append(what, map[bool]string{true: "now searchable", false: "no longer searchable"}[nc.Searchable])
	}
	if len(what) == 0 {
		if m := columnMetadataChanges(oc, nc); m != "" {
			d.change(Change{Kind: ChangeMetadata, Table: nt.Name, Column: nc.Name,
				Description: fmt.Sprintf("change %s of %s.%s (no SQL)", m, nt.Name, nc.Name)})
		}
		return
	}
	c := d.change(Change{Kind: ChangeAlterColumn, Table: nt.Name, Column: nc.Name, Destructive: conv.narrowing,
		Description: fmt.Sprintf("change column %s.%s: %s", nt.Name, nc.Name, strings.Join(what, "; "))})
	if why != "" {
		c.Unsupported = why
		return
	}
	if conv.narrowing {
		c.Description += fmt.Sprintf(" (narrowing: %s holds fewer values than %s)", nc.Type, oc.Type)
	}

	// Checks of the existing rows, on the published names. Every check
	// of a converted value is guarded so that a value the conversion
	// cannot take is reported once, by the conversion's own check.
	ref := func(alias string) string { return alias + "." + QuoteIdent(oc.Name) }
	value := func(alias string) string {
		if retype {
			return conv.using(ref(alias))
		}
		return ref(alias)
	}
	guard := func(alias, cond string) string {
		if conv.bad == nil {
			return cond
		}
		return "CASE WHEN " + conv.bad(ref(alias)) + " THEN false ELSE " + cond + " END"
	}
	if conv.bad != nil {
		d.precheck(c, ot, nc.Name, conv.rule, ref("t")+" IS NOT NULL AND ("+conv.bad(ref("t"))+")", 0)
	}
	if f := FormatSQL(nc.Type, value("t")); typeChanged && f != "" {
		d.precheck(c, ot, nc.Name, "every value is a valid "+map[string]string{TypeEmail: "e-mail address in lower case", TypeURL: "http or https URL"}[nc.Type],
			ref("t")+" IS NOT NULL AND "+guard("t", "NOT "+f), 0)
	}
	if nc.Required && !oc.Required {
		d.precheck(c, ot, nc.Name, "every row has a value (the column becomes required)", ref("t")+" IS NULL", 0)
	}
	if nc.Unique && (!oc.Unique || retype) {
		valid := ref("u") + " IS NOT NULL"
		if conv.bad != nil {
			valid += " AND NOT (" + conv.bad(ref("u")) + ")"
		}
		groups := " FROM " + d.g.table(ot.Name) + " AS u WHERE " + valid + " GROUP BY " + value("u") + " HAVING count(*) > 1"
		// Counting the rows of duplicated values needs one scan; the
		// examples (only on failure) find those rows again.
		d.precheckCounted(c, ot, nc.Name, "no two rows share a value (the column becomes unique)",
			ref("t")+" IS NOT NULL AND "+guard("t", value("t")+" IN (SELECT "+value("u")+groups+")"),
			"SELECT coalesce(sum(n), 0) FROM (SELECT count(*) AS n"+groups+") AS d", 0)
	}
	if checkChanged && newChk != "" && !looser(oc, nc) {
		cond := "NOT coalesce(" + checkExprOn(nc, value("t")) + ", true)"
		if f := FormatSQL(nc.Type, value("t")); typeChanged && f != "" {
			// A value that is no e-mail or URL at all is reported once,
			// by the format check.
			cond = "CASE WHEN NOT coalesce(" + f + ", true) THEN false ELSE " + cond + " END"
		}
		d.precheck(c, ot, nc.Name, "every value follows the new rule: "+describeRule(nc), guard("t", cond), 0)
	}
	if targetChanged {
		if pubTarget != "" {
			d.precheck(c, ot, nc.Name, "every value is the id of a row of "+fkNew.Table,
				ref("t")+" IS NOT NULL AND "+guard("t", `NOT EXISTS (SELECT 1 FROM `+d.g.table(pubTarget)+` AS r WHERE r."id" = `+value("t")+")"), 0, pubTarget)
		} else {
			d.precheck(c, ot, nc.Name, "the column is empty, because the table it now references ("+fkNew.Table+") is new", ref("t")+" IS NOT NULL", 0)
		}
	}

	// Statements, on the new names.
	alter := "ALTER TABLE " + d.g.table(nt.Name) + " "
	col := QuoteIdent(nc.Name)
	name := func(suffix string) string { return QuoteIdent(ConstraintName(nt.Name, nc.Name, suffix)) }
	if fkDrop {
		d.emit(c, stepDropReference, alter+"DROP CONSTRAINT IF EXISTS "+name("fkey"))
	}
	if checkChanged && oldChk != "" {
		d.emit(c, stepLoosen, alter+"DROP CONSTRAINT IF EXISTS "+name("check"))
	}
	if oc.Unique && !nc.Unique {
		d.emit(c, stepLoosen, alter+"DROP CONSTRAINT IF EXISTS "+name("key"))
	}
	if plainOld && !plainNew {
		d.emit(c, stepLoosen, "DROP INDEX IF EXISTS "+d.g.table(ConstraintName(nt.Name, nc.Name, indexPlain)))
	}
	if oc.Searchable && !nc.Searchable {
		d.emit(c, stepLoosen, "DROP INDEX IF EXISTS "+d.g.table(ConstraintName(nt.Name, nc.Name, indexTrigram)))
	}
	if oc.Required && !nc.Required {
		d.emit(c, stepLoosen, alter+"ALTER COLUMN "+col+" DROP NOT NULL")
		// The helper check of an earlier "now required" whose
		// after-commit step never ran would keep enforcing it.
		d.emit(c, stepLoosen, alter+"DROP CONSTRAINT IF EXISTS "+name("not_null"))
	}
	if oldDef != "" && defaultChanged {
		d.emit(c, stepLoosen, alter+"ALTER COLUMN "+col+" DROP DEFAULT")
	}
	if retype {
		d.emit(c, stepRetype, alter+"ALTER COLUMN "+col+" TYPE "+pgTypes[nc.Type]+" USING "+conv.using(col))
		c.RewritesTable = true
	}
	if newDef != "" && defaultChanged {
		d.emit(c, stepDefault, alter+"ALTER COLUMN "+col+" SET DEFAULT "+newDef)
	}
	if nc.Unique && !oc.Unique {
		build := "CREATE UNIQUE INDEX " + name("key") + " ON " + d.g.table(nt.Name) + " (" + col + ")"
		// On a column that keeps its name and type the index is built
		// first, under the SHARE lock alone, so reads go on meanwhile.
		if !retype && ot.Name == nt.Name && oc.Name == nc.Name {
			d.emit(c, stepEarly, build)
		} else {
			d.emit(c, stepUnique, build)
		}
		d.emit(c, stepUnique, alter+"ADD CONSTRAINT "+name("key")+" UNIQUE USING INDEX "+name("key"))
	}
	if checkChanged && newChk != "" {
		d.emit(c, stepCheck, alter+"ADD CONSTRAINT "+name("check")+" CHECK ("+checkExpr(nc)+") NOT VALID")
		d.later(c, alter+"VALIDATE CONSTRAINT "+name("check"))
	}
	if nc.Required && !oc.Required {
		// SET NOT NULL scans the table under an exclusive lock unless a
		// validated check already proves it; so: check NOT VALID now,
		// VALIDATE after commit (no exclusive lock), then SET NOT NULL
		// (instant) and drop the helper.
		nn := name("not_null")
		d.emit(c, stepCheck, alter+"ADD CONSTRAINT "+nn+" CHECK ("+col+" IS NOT NULL) NOT VALID")
		d.later(c, alter+"VALIDATE CONSTRAINT "+nn)
		d.later(c, alter+"ALTER COLUMN "+col+" SET NOT NULL")
		d.later(c, alter+"DROP CONSTRAINT "+nn)
	}
	if fkAdd {
		d.emit(c, stepReference, d.g.ForeignKey(nt.Name, nc)+" NOT VALID")
		d.later(c, alter+"VALIDATE CONSTRAINT "+name("fkey"))
	}
	if plainNew && !plainOld {
		d.later(c, d.g.createIndex(nt.Name, nc, indexPlain, true))
	}
	if trgmNew && !oc.Searchable {
		d.later(c, d.g.createIndex(nt.Name, nc, indexTrigram, true))
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
	def := defaultLiteral(nc)
	add := alter + "ADD COLUMN " + col + " " + pgTypes[nc.Type]
	if def != "" {
		add += " DEFAULT " + def
	}
	if nc.Required {
		add += " NOT NULL"
	}
	d.emit(c, stepCreate, add)
	if nc.Required && def == "" {
		c.Description += "; existing rows would have no value, so the table must be empty"
		d.precheck(c, ot, nc.Name, "the table is empty (existing rows would have no value for a new required column without a default)", "true", 0)
	}
	if nc.Unique {
		if def != "" {
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
		if def != "" {
			if target, ok := d.oldOf[r.Table]; ok {
				d.precheck(c, ot, nc.Name, fmt.Sprintf("the table is empty, or the default %s is the id of a row of %s (every existing row gets it)", def, r.Table),
					`NOT EXISTS (SELECT 1 FROM `+d.g.table(target.Name)+` AS r WHERE r."id" = `+def+")", 0, target.Name)
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
	if a.Type == TypePassword && (!jsonEqual(a.MinLength, b.MinLength) || !jsonEqual(a.MaxLength, b.MaxLength)) {
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
