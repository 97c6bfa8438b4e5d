package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

var nameRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)

var reservedTables = map[string]bool{"auth": true, "docs": true, "openapi": true, "realtime": true}

// postgresSystemColumns are the columns PostgreSQL gives every table
// itself: a table cannot have a column of one of these names ("conflicts
// with a system column name"), and the generated SQL reads some of them
// (an upsert's xmax, a keyless fronted table's ctid). Quoting cannot
// help, so the names are refused.
var postgresSystemColumns = map[string]bool{"tableoid": true, "xmin": true, "cmin": true, "xmax": true, "cmax": true, "ctid": true}

// ValidName reports whether s obeys the name rules of CONTRACT 4.1.
func ValidName(s string) bool { return nameRe.MatchString(s) }

// Problems maps a path in the document (tables[1].columns[0].type) to
// what is wrong there.
type Problems map[string]string

func (p Problems) add(path, format string, args ...any) {
	if _, seen := p[path]; !seen {
		p[path] = fmt.Sprintf(format, args...)
	}
}

// Validate checks a document against every rule of CONTRACT 4 and returns
// the problems by path; an empty result means the document can be
// published. external allows passthrough columns (fronted databases).
func Validate(d Document) Problems {
	if p := CheckLimits(d); len(p) > 0 {
		return p
	}
	p := Problems{}
	tables := map[string]*Table{}
	authTables := 0
	for i := range d.Tables {
		t := &d.Tables[i]
		tp := fmt.Sprintf("tables[%d]", i)
		switch {
		case !ValidName(t.Name):
			p.add(tp+".name", "must start with a lowercase letter and use only a-z, 0-9 and _ (at most 63 characters)")
		case reservedTables[t.Name]:
			p.add(tp+".name", "%q is reserved", t.Name)
		case tables[t.Name] != nil:
			p.add(tp+".name", "duplicate table name %q", t.Name)
		default:
			tables[t.Name] = t
		}
		if t.RenamedFrom != "" && !ValidName(t.RenamedFrom) {
			p.add(tp+".renamed_from", "is not a valid table name")
		}
		if t.IDType != "" && t.IDType != IDInteger && t.IDType != IDUUID {
			p.add(tp+".id_type", "must be integer or uuid")
		}
		if t.Realtime && t.External != nil {
			// Capture needs triggers and a change log in the fronted
			// database, which Tablesmith does not change (docs/realtime.md).
			p.add(tp+".realtime", "is not available on a table of a fronted database (it would need triggers in that database)")
		}
		checkCache(p, t, tp)
		checkEmailVerification(p, t, tp)
		if t.Auth {
			authTables++
			if authTables > 1 {
				p.add(tp+".auth", "only one table can be the auth table")
			}
		}
	}
	for i := range d.Tables {
		validateTable(p, d, tables, i)
	}
	if len(p) == 0 {
		checkRelationNames(p, d)
	}
	if len(p) == 0 {
		manyToMany(d, relationNamesTaken(d), p)
	}
	return p
}

// checkEmailVerification allows the setting only on the auth table, the
// one whose users sign in with an e-mail.
func checkEmailVerification(p Problems, t *Table, tp string) {
	switch t.EmailVerification {
	case "", EmailVerificationOff:
		return
	case EmailVerificationOptional, EmailVerificationRequired:
	default:
		p.add(tp+".email_verification", "must be off, optional or required")
		return
	}
	if !t.Auth {
		p.add(tp+".email_verification", "is a setting of the auth table (the table with \"auth\": true)")
	}
}

// checkCache allows a cache lifetime only on a table anyone may read: a
// shared cache hands its answers to every client alike.
func checkCache(p Problems, t *Table, tp string) {
	if t.Cache == nil {
		return
	}
	if t.Cache.MaxAge < MinCacheMaxAge || t.Cache.MaxAge > MaxCacheMaxAge {
		p.add(tp+".cache.max_age", "must be a whole number of seconds from %d to %d", MinCacheMaxAge, MaxCacheMaxAge)
	}
	if t.Permissions == nil || t.Permissions.Read != LevelPublic {
		p.add(tp+".cache", "needs the public read permission (permissions.read = public): a shared cache gives its answers to everyone")
	}
}

func validateTable(p Problems, d Document, tables map[string]*Table, i int) {
	t := &d.Tables[i]
	tp := fmt.Sprintf("tables[%d]", i)
	checkJunction(p, t, tp)
	seen := map[string]bool{}
	for j := range t.Columns {
		c := &t.Columns[j]
		cp := fmt.Sprintf("%s.columns[%d]", tp, j)
		switch {
		case !ValidName(c.Name):
			p.add(cp+".name", "must start with a lowercase letter and use only a-z, 0-9 and _ (at most 63 characters)")
		case isSystemColumn(c.Name) && t.External == nil:
			p.add(cp+".name", "%q is a system column that every table has", c.Name)
		case postgresSystemColumns[c.Name]:
			p.add(cp+".name", "%q is reserved: PostgreSQL gives every table a column of that name (tableoid, xmin, cmin, xmax, cmax, ctid)", c.Name)
		case seen[c.Name]:
			p.add(cp+".name", "duplicate column name %q", c.Name)
		}
		seen[c.Name] = true
		if c.RenamedFrom != "" && !ValidName(c.RenamedFrom) {
			p.add(cp+".renamed_from", "is not a valid column name")
		}
		validateColumn(p, cp, t, c, tables)
	}
	checkInputNames(p, t, tp)
	if t.Auth {
		email, ok := t.Column("email")
		if !ok || email.Type != TypeEmail {
			p.add(tp+".auth", "an auth table needs a column named email of type email")
		}
		if !hasType(t, TypePassword) {
			p.add(tp+".auth", "an auth table needs a column of type password")
		}
	}
	if t.OwnerColumn != "" {
		oc, ok := t.Column(t.OwnerColumn)
		switch {
		case !ok:
			p.add(tp+".owner_column", "no column named %q", t.OwnerColumn)
		case oc.References == nil || tables[oc.References.Table] == nil || !tables[oc.References.Table].Auth:
			p.add(tp+".owner_column", "must be a column that references the auth table")
		}
	}
	if t.Permissions != nil {
		for op, level := range map[string]string{"read": t.Permissions.Read, "create": t.Permissions.Create,
			"update": t.Permissions.Update, "delete": t.Permissions.Delete} {
			switch level {
			case "", LevelPublic, LevelAuthenticated, LevelKey:
			case LevelOwner:
				if t.OwnerColumn == "" {
					p.add(tp+".permissions."+op, "owner needs the table's owner_column")
				}
			default:
				p.add(tp+".permissions."+op, "must be public, authenticated, owner or key")
			}
		}
	}
}

// checkInputNames refuses a password column whose body field (x for
// x_hash) is the name of another column or of a system column: a body's
// field would set both, or a password would hide behind "id".
func checkInputNames(p Problems, t *Table, tp string) {
	for j, c := range t.Columns {
		in := inputName(c)
		if in == c.Name {
			continue
		}
		_, taken := t.Column(in)
		if taken || (isSystemColumn(in) && t.External == nil) {
			p.add(fmt.Sprintf("%s.columns[%d].name", tp, j),
				"the password column %s takes its value in the field %q, which is also the name of a column of %s; rename one of them", c.Name, in, t.Name)
		}
	}
}

// validateColumn checks one column, a step per concern. The order of the
// steps is the order of the rules: where two rules report at the same path,
// the first one's message is kept (Problems.add).
func validateColumn(p Problems, cp string, t *Table, c *Column, tables map[string]*Table) {
	if !checkColumnType(p, cp, t, c) {
		return
	}
	checkNumericBounds(p, cp, c)
	checkLengths(p, cp, c)
	checkPattern(p, cp, c)
	checkEnumValues(p, cp, c)
	checkTypeFlags(p, cp, c)
	checkFileSettings(p, cp, c)
	checkColumnDefault(p, cp, c)
	checkReference(p, cp, t, c, tables)
	checkRelationNameRules(p, cp, c)
}

// checkColumnType reports whether the column has a type the other rules
// apply to. A passthrough column of a fronted table has none, and is fine.
func checkColumnType(p Problems, cp string, t *Table, c *Column) bool {
	ct, known := TypeOf(c.Type)
	if known && ct.Offered {
		return true
	}
	if !known || !ct.Traits.ReadOnly || t.External == nil {
		p.add(cp+".type", "unknown type %q (one of %s)", c.Type, strings.Join(Types, ", "))
	}
	return false
}

// checkNumericBounds: min and max, on numeric columns only.
func checkNumericBounds(p Problems, cp string, c *Column) {
	if (c.Min != nil || c.Max != nil) && !typeOf(c.Type).Traits.Numeric {
		p.add(cp+".min", "%s", msgBoundsApply)
	}
	if c.Min != nil && c.Max != nil && *c.Min > *c.Max {
		p.add(cp+".min", "must not be greater than max")
	}
}

// checkLengths: min_length, max_length and pattern are set on text-like
// columns only, and the lengths are possible.
func checkLengths(p Problems, cp string, c *Column) {
	if (c.MinLength != nil || c.MaxLength != nil || c.Pattern != "") && !typeOf(c.Type).Traits.Lengths {
		p.add(cp+".max_length", "min_length, max_length and pattern apply to text-like columns")
	}
	if c.MinLength != nil && *c.MinLength < 0 {
		p.add(cp+".min_length", "must not be negative")
	}
	if c.MaxLength != nil && *c.MaxLength < 1 {
		p.add(cp+".max_length", "must be at least 1")
	}
	if c.MinLength != nil && c.MaxLength != nil && *c.MinLength > *c.MaxLength {
		p.add(cp+".min_length", "must not be greater than max_length")
	}
}

// checkPattern: a pattern compiles (where it may be set is checkLengths's
// concern).
func checkPattern(p Problems, cp string, c *Column) {
	if c.Pattern == "" {
		return
	}
	if _, err := patternCache(c.Pattern); err != nil {
		p.add(cp+".pattern", "is not a valid regular expression")
	}
}

// checkEnumValues: an enum has distinct, non-empty values; no other type
// has values.
func checkEnumValues(p Problems, cp string, c *Column) {
	if !typeOf(c.Type).Traits.Enumerated {
		if len(c.Values) > 0 {
			p.add(cp+".values", "%s", msgValuesApply)
		}
		return
	}
	if len(c.Values) == 0 {
		p.add(cp+".values", "an enum needs at least one value")
	}
	seen := map[string]bool{}
	for _, v := range c.Values {
		if v == "" || seen[v] {
			p.add(cp+".values", "values must be non-empty and distinct")
		}
		seen[v] = true
		if indexedValue(c) && utf8.RuneCountInString(v) > MaxIndexedLength {
			p.add(cp+".values", "values of a unique or indexed enum are at most %d characters (they are kept in an index)", MaxIndexedLength)
		}
	}
}

// checkTypeFlags: searchable, html, unique and index where the column's
// type allows them.
func checkTypeFlags(p Problems, cp string, c *Column) {
	traits := typeOf(c.Type).Traits
	if c.Searchable && !traits.Textual {
		p.add(cp+".searchable", "%s", msgSearchable)
	}
	if c.HTML && !traits.Markup {
		p.add(cp+".html", "%s", msgHTMLApplies)
	}
	switch {
	case traits.Secret && (c.Unique || c.Index || len(c.Default) > 0):
		p.add(cp+".type", "a %s column cannot be unique, indexed or have a default", c.Type)
	case c.Unique && !traits.Unique && !traits.Secret:
		p.add(cp+".unique", "%s columns cannot be unique", c.Type)
	}
	if c.Index && !traits.Indexable && !traits.Secret {
		// E.g. json: a btree index of whole documents serves no query
		// (they are neither filtered nor sorted) and refuses every
		// document over 2,704 bytes.
		p.add(cp+".index", "%s columns cannot be indexed", c.Type)
	}
}

// checkFileSettings: max_size, mime_types and thumbnails on file columns
// only, max_files on files columns only, each within its bounds.
func checkFileSettings(p Problems, cp string, c *Column) {
	traits := typeOf(c.Type).Traits
	if (c.MaxSize != nil || len(c.MimeTypes) > 0 || c.Thumbnails) && !traits.Upload {
		p.add(cp+".max_size", "%s", msgFileSettings)
	}
	if c.MaxFiles != nil && !traits.Many {
		p.add(cp+".max_files", "max_files applies to %s columns only", TypeFiles)
	}
	if c.MaxSize != nil && *c.MaxSize < 1 {
		p.add(cp+".max_size", "must be at least 1 (bytes)")
	}
	if c.MaxFiles != nil && (*c.MaxFiles < 1 || *c.MaxFiles > MaxMaxFiles) {
		p.add(cp+".max_files", "must be between 1 and %d", MaxMaxFiles)
	}
	for _, m := range c.MimeTypes {
		if !mediaRangeRe.MatchString(m) {
			p.add(cp+".mime_types", "%q is not a media type such as image/png or image/*", m)
			break
		}
	}
}

// mediaRangeRe is a media type without parameters, or a type with any
// subtype (image/*), in lower case as sniffing names them.
var mediaRangeRe = regexp.MustCompile(`^[a-z0-9][a-z0-9!#$&^_.+-]{0,62}/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$`)

// Messages that list the types a rule applies to, from the registry.
var (
	msgBoundsApply  = "min and max apply to " + typeNames(func(t Traits) bool { return t.Numeric }) + " columns"
	msgFileSettings = "max_size, mime_types and thumbnails apply to " + typeNames(func(t Traits) bool { return t.Upload }) + " columns only"
	msgValuesApply  = "values apply to " + typeNames(func(t Traits) bool { return t.Enumerated }) + " columns only"
	msgSearchable   = "only " + typeNames(func(t Traits) bool { return t.Textual }) + " columns are searchable"
	msgHTMLApplies  = "html applies to " + typeNames(func(t Traits) bool { return t.Markup }) + " columns only"
)

// checkColumnDefault: a default or a backfill (other than null) is a
// value the column accepts.
func checkColumnDefault(p Problems, cp string, c *Column) {
	if !isNullJSON(c.Default) && typeOf(c.Type).Traits.Upload {
		p.add(cp+".default", "a %s column takes no default (its values are uploaded files)", c.Type)
	} else if !isNullJSON(c.Default) {
		if msg := checkDefault(c); msg != "" {
			p.add(cp+".default", "%s", msg)
		}
	}
	switch {
	case isNullJSON(c.Backfill):
	case typeOf(c.Type).Traits.Upload:
		p.add(cp+".backfill", "a %s column takes no backfill (its values are uploaded files)", c.Type)
	case typeOf(c.Type).Traits.Secret:
		p.add(cp+".backfill", "a %s column takes no backfill (it holds only hashes)", c.Type)
	default:
		if msg := checkDefault(c.withDefault(c.Backfill)); msg != "" {
			p.add(cp+".backfill", "%s", msg)
		}
	}
}

// isNullJSON reports whether a raw value is absent or null.
func isNullJSON(v json.RawMessage) bool {
	return len(v) == 0 || bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// withDefault is the column with value as its default: a backfill is
// checked and written the way a default is.
func (c *Column) withDefault(value json.RawMessage) *Column {
	copied := *c
	copied.Default = value
	return &copied
}

// checkReference: the referenced table exists and may be referenced, the
// column's type matches its id, and on_delete is known and possible.
// Without a reference, relation names have nothing to name.
func checkReference(p Problems, cp string, t *Table, c *Column, tables map[string]*Table) {
	r := c.References
	if r == nil {
		if c.Relation != "" || c.ReverseRelation != "" {
			p.add(cp+".relation", "relation names apply to columns with references")
		}
		return
	}
	target := tables[r.Table]
	switch {
	case target == nil:
		p.add(cp+".references.table", "no table named %q", r.Table)
	case target.External != nil && t.External == nil:
		p.add(cp+".references.table", "cannot reference a table of an external database")
	default:
		want := TypeInteger
		if target.IDType == IDUUID {
			want = TypeUUID
		}
		if c.Type != want {
			p.add(cp+".type", "must be %s to reference %s.id", want, r.Table)
		}
	}
	checkOnDelete(p, cp, c)
}

// checkOnDelete: on_delete is one of the rules, and set_null needs a
// column that may be null.
func checkOnDelete(p Problems, cp string, c *Column) {
	switch c.References.OnDelete {
	case "", OnDeleteRestrict, OnDeleteCascade:
	case OnDeleteSetNull:
		if c.Required {
			p.add(cp+".references.on_delete", "set_null needs a column that is not required")
		}
	default:
		p.add(cp+".references.on_delete", "must be cascade, restrict or set_null")
	}
}

// checkRelationNameRules: relation names set by the user follow the name
// rules (whether they clash is checkRelationNames's concern).
func checkRelationNameRules(p Problems, cp string, c *Column) {
	for _, rel := range []string{c.Relation, c.ReverseRelation} {
		if rel != "" && !ValidName(rel) {
			p.add(cp+".relation", "relation names follow the name rules")
		}
	}
}

// checkDefault checks a default value the way a request body value is
// checked, except for the special "now" of timestamp and date columns.
func checkDefault(c *Column) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(c.Default))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "is not valid JSON"
	}
	if s, ok := v.(string); ok && s == "now" && typeOf(c.Type).nowSQL != "" {
		return ""
	}
	_, msg := checkDefaultValue(*c, v)
	return msg
}

func checkRelationNames(p Problems, d Document) {
	names := map[string]map[string]string{} // table → relation name → where it came from
	claim := func(table, rel, path string) {
		if names[table] == nil {
			names[table] = map[string]string{}
		}
		t, _ := d.Table(table)
		if isSystemColumn(rel) {
			p.add(path, "relation %q on %s clashes with a system column; set a different name", rel, table)
			return
		}
		if _, isCol := t.Column(rel); isCol {
			p.add(path, "relation %q on %s clashes with a column of that name; set a different name", rel, table)
			return
		}
		if prev, dup := names[table][rel]; dup {
			p.add(path, "relation %q on %s is also defined by %s; set a different name", rel, table, prev)
			return
		}
		names[table][rel] = path
	}
	for i, t := range d.Tables {
		for j, c := range t.Columns {
			if c.References == nil {
				continue
			}
			cp := fmt.Sprintf("tables[%d].columns[%d]", i, j)
			claim(t.Name, ForwardRelationName(c), cp+".relation")
			claim(c.References.Table, ReverseRelationName(t.Name, c), cp+".reverse_relation")
		}
	}
}

// ForwardRelationName is the name under which a referencing row embeds the
// row it references: the column name without _id, or the referenced
// table's name when the column has no _id suffix.
func ForwardRelationName(c Column) string {
	if c.Relation != "" {
		return c.Relation
	}
	if n := strings.TrimSuffix(c.Name, "_id"); n != c.Name && n != "" {
		return n
	}
	return c.References.Table
}

// ReverseRelationName is the name under which a referenced row embeds the
// rows that reference it: the referencing table's name.
func ReverseRelationName(table string, c Column) string {
	if c.ReverseRelation != "" {
		return c.ReverseRelation
	}
	return table
}

func isSystemColumn(name string) bool {
	return name == ColID || name == ColCreatedAt || name == ColUpdatedAt
}

// isTextual reports the types that search matches and LIKE applies to.
func isTextual(t string) bool { return typeOf(t).Traits.Textual }

func hasType(t *Table, typ string) bool {
	for _, c := range t.Columns {
		if c.Type == typ {
			return true
		}
	}
	return false
}

// ValidProjectID reports whether s can be a project id (12 of [a-z0-9]),
// so malformed ids are refused before any lookup.
func ValidProjectID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}
