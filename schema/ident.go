package schema

import "strings"

// QuoteIdent quotes a PostgreSQL identifier. Names that reach it have
// passed the name rules already; quoting is the second fence. It is the
// one quoting of identifiers in the tree (lib/pq's QuoteIdentifier
// differs: it cuts a name at a NUL byte instead of letting PostgreSQL
// refuse it).
func QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// projectSchemaPrefix starts the PostgreSQL schema of every managed
// project: p_<project id>.
const projectSchemaPrefix = "p_"

// ProjectSchema is the name of the PostgreSQL schema that holds a
// managed project's tables (unquoted; QuoteIdent it for SQL).
func ProjectSchema(projectID string) string { return projectSchemaPrefix + projectID }

// ProjectOfSchema is the project whose schema ProjectSchema named name;
// ok is false for a schema that is not a project's.
func ProjectOfSchema(name string) (projectID string, ok bool) {
	id, ok := strings.CutPrefix(name, projectSchemaPrefix)
	return id, ok && id != ""
}

// ProjectSchemaPattern is a LIKE pattern (with the default escape, \)
// that matches the schema of every managed project.
func ProjectSchemaPattern() string {
	return strings.ReplaceAll(projectSchemaPrefix, "_", `\_`) + "%"
}
