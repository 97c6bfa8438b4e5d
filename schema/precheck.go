package schema

import (
	"fmt"
	"strings"
)

// Precheck finds the existing rows of one column that a migration could
// not keep as they are: values a new constraint forbids, values a new type
// cannot hold exactly. Generate runs every precheck before any statement
// and refuses the whole plan when one finds rows, naming them.
type Precheck struct {
	Table  string `json:"table"`            // draft table name
	Column string `json:"column,omitempty"` // draft column name
	// Rule is what every row must satisfy, in words.
	Rule string `json:"rule"`
	// SQL counts the rows that break the rule, against the tables as
	// they are before the migration (published names).
	SQL string `json:"sql"`
	// Examples selects the ids (as text) of the first ExampleLimit of
	// them; it runs only when the count is over Allowed, so a check that
	// passes costs one scan.
	Examples string `json:"examples_sql"`
	// Allowed is how many such rows are still fine (1 for "at most one
	// row"); the precheck fails when the count exceeds it.
	Allowed int `json:"allowed,omitempty"`
}

// ExampleLimit is how many ids of offending rows a precheck reports.
const ExampleLimit = 5

// Patterns that mirror the request validators in SQL, for the prechecks
// of type changes. Each accepts no value that the validator refuses (it
// may refuse a few exotic values the validator takes, such as URLs with
// non-ASCII host names); TestSQLFormatsAgreeWithTheValidators compares them.
const (
	emailPattern   = `^` + emailAddress + `$`
	urlPattern     = `^[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9._~!$&'()*+,;=:-]*@)?([A-Za-z0-9._~!$&'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]*)?([/?#]([^%\s[:cntrl:]]|%[0-9A-Fa-f]{2})*)?$`
	uuidPattern    = `^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`
	integerPattern = `^[+-]?[0-9]{1,19}$`
	numberPattern  = `^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$`
	datePattern    = `^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$`
)

// FormatSQL returns a condition that is true when the text value v
// would pass the request validator of an email or url column unchanged
// (an e-mail must already be lower case, as the API stores it), or ""
// for types whose format the database checks itself.
func FormatSQL(typ, v string) string {
	if f := typeOf(typ).format; f != nil {
		return f.cond(v)
	}
	return ""
}

// precheck adds a precheck of a column of the published table ot: the
// rows where cond holds (cond reads the row as t) break the rule. It
// locks that table (and any other published tables named) for it.
func (d *differ) precheck(c *Change, ot Table, column, rule, cond string, allowed int, alsoLock ...string) {
	d.precheckCounted(c, ot, column, rule, cond, d.countWhere(ot, cond), allowed, alsoLock...)
}

// countWhere counts the rows of the published table ot where cond holds.
func (d *differ) countWhere(ot Table, cond string) string {
	return fmt.Sprintf(`SELECT count(*) FROM %s AS t WHERE %s`, d.g.table(ot.Name), cond)
}

// precheckCounted is precheck with a cheaper query for the count.
func (d *differ) precheckCounted(c *Change, ot Table, column, rule, cond, count string, allowed int, alsoLock ...string) {
	d.precheckUnlocked(c, ot, column, rule, cond, count, allowed)
	d.locks[d.g.table(ot.Name)] = true
	for _, t := range alsoLock {
		d.locks[d.g.table(t)] = true
	}
}

// precheckUnlocked adds a precheck without locking its table, for a rule
// that a write racing the migration cannot break unnoticed (another
// precheck of the table may still lock it).
func (d *differ) precheckUnlocked(c *Change, ot Table, column, rule, cond, count string, allowed int) {
	d.checks = append(d.checks, Precheck{Table: c.Table, Column: column, Rule: rule, Allowed: allowed, SQL: count,
		Examples: fmt.Sprintf(`SELECT t."id"::text FROM %s AS t WHERE %s ORDER BY t."id" LIMIT %d`, d.g.table(ot.Name), cond, ExampleLimit)})
	c.Checks = append(c.Checks, rule)
}

// describeRule says in words what a column's check constraint allows.
func describeRule(c Column) string {
	var parts []string
	t := typeOf(c.Type)
	if t.checkRule != nil {
		parts = append(parts, t.checkRule(c))
	}
	if c.Min != nil {
		parts = append(parts, "at least "+formatNumber(*c.Min))
	}
	if c.Max != nil {
		parts = append(parts, "at most "+formatNumber(*c.Max))
	}
	if t.storedLengths() {
		if c.MinLength != nil && *c.MinLength > 0 {
			parts = append(parts, fmt.Sprintf("at least %d characters", *c.MinLength))
		}
		if c.MaxLength != nil {
			parts = append(parts, fmt.Sprintf("at most %d characters", *c.MaxLength))
		}
	}
	return strings.Join(parts, ", ")
}
