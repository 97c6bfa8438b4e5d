// Package schema holds the schema document that users design (CONTRACT 4),
// its validation, its compiled per-table form, the change plan between two
// documents and the PostgreSQL DDL that applies it. It does no I/O.
package schema

import "encoding/json"

// Document is the schema document: the builder edits it, the platform API
// stores it, generate publishes it.
type Document struct {
	Tables []Table `json:"tables"`
}

// Table is one table of the document. The system columns id, created_at
// and updated_at are implied and never listed.
type Table struct {
	Name        string       `json:"name"`
	RenamedFrom string       `json:"renamed_from,omitempty"`
	Description string       `json:"description,omitempty"`
	Auth        bool         `json:"auth,omitempty"`
	IDType      string       `json:"id_type,omitempty"`
	OwnerColumn string       `json:"owner_column,omitempty"`
	Permissions *Permissions `json:"permissions,omitempty"`
	// Junction makes the table link two others many-to-many through its
	// two required references, even when it has columns of its own
	// (a table whose only columns are those references is one anyway).
	Junction bool `json:"junction,omitempty"`
	// EmailVerification is the auth table's e-mail verification:
	// EmailVerificationOff (also when empty), Optional (register mails a
	// link; sign-in does not wait for it) or Required (no session until
	// the address is verified). docs/end-user-auth.md.
	EmailVerification string `json:"email_verification,omitempty"`
	// Realtime captures the table's changes for the realtime stream
	// (docs/realtime.md): triggers write them to the project's change log.
	Realtime bool `json:"realtime,omitempty"`
	// Cache lets shared caches (an edge Caddy with cache-handler, a CDN)
	// keep anonymous reads of a public table (docs/edge-cache.md).
	Cache   *Cache   `json:"cache,omitempty"`
	Columns []Column `json:"columns"`
	// Position is where the builder's diagram draws the table; the server
	// keeps it and never interprets it.
	Position *Position `json:"position,omitempty"`
	// External is set on tables read from an existing database: their
	// system columns are whatever that database has (see Source).
	External *ExternalTable `json:"external,omitempty"`
}

// Values of Table.EmailVerification.
const (
	EmailVerificationOff      = "off"
	EmailVerificationOptional = "optional"
	EmailVerificationRequired = "required"
)

// Cache is a table's shared-cache setting: anonymous reads are answered
// with Cache-Control: public, max-age=MaxAge.
type Cache struct {
	// MaxAge is how long, in seconds, a shared cache may serve an answer
	// without asking again (MinCacheMaxAge..MaxCacheMaxAge). Writes made
	// through the API purge it sooner; writes that bypass the API are
	// bounded by it alone.
	MaxAge int `json:"max_age"`
}

// Bounds of Cache.MaxAge: at least a second, at most a day (a longer
// lifetime would keep answers of writes made outside the API for longer
// than anyone expects).
const (
	MinCacheMaxAge = 1
	MaxCacheMaxAge = 86400
)

// Position is a point on the builder's canvas.
type Position struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// ExternalTable describes a table of an existing database that the
// project fronts instead of owns.
type ExternalTable struct {
	PrimaryKey   string `json:"primary_key"`
	HasCreatedAt bool   `json:"has_created_at,omitempty"`
	HasUpdatedAt bool   `json:"has_updated_at,omitempty"`
}

// Permissions are the access rules per operation; an empty string means
// the default, "authenticated".
type Permissions struct {
	Read   string `json:"read,omitempty"`
	Create string `json:"create,omitempty"`
	Update string `json:"update,omitempty"`
	Delete string `json:"delete,omitempty"`
}

// Column is one user column of a table.
type Column struct {
	Name            string          `json:"name"`
	Type            string          `json:"type"`
	RenamedFrom     string          `json:"renamed_from,omitempty"`
	Description     string          `json:"description,omitempty"`
	Required        bool            `json:"required,omitempty"`
	Unique          bool            `json:"unique,omitempty"`
	Default         json.RawMessage `json:"default,omitempty"`
	Min             *float64        `json:"min,omitempty"`
	Max             *float64        `json:"max,omitempty"`
	MinLength       *int            `json:"min_length,omitempty"`
	MaxLength       *int            `json:"max_length,omitempty"`
	Pattern         string          `json:"pattern,omitempty"`
	Values          []string        `json:"values,omitempty"`
	Index           bool            `json:"index,omitempty"`
	Searchable      bool            `json:"searchable,omitempty"`
	References      *Reference      `json:"references,omitempty"`
	HTML            bool            `json:"html,omitempty"`
	Relation        string          `json:"relation,omitempty"`
	ReverseRelation string          `json:"reverse_relation,omitempty"`
	// MaxSize, MimeTypes and Thumbnails are a file column's limits (file
	// and files; docs/files.md): the most bytes per file, the media types
	// it takes as sniffed from the content ("image/png", "image/*"), and
	// whether images are served as thumbnails. MaxFiles bounds a files
	// column's list (DefaultMaxFiles when unset).
	MaxSize    *int64   `json:"max_size,omitempty"`
	MimeTypes  []string `json:"mime_types,omitempty"`
	Thumbnails bool     `json:"thumbnails,omitempty"`
	MaxFiles   *int     `json:"max_files,omitempty"`
	// PGType is the database type of a passthrough column (type
	// "passthrough", only on fronted databases): read-only, never altered.
	PGType string `json:"pg_type,omitempty"`
	// Backfill is the value the existing rows get once when the column is
	// added (a required column on a table that has rows needs one, if it
	// has no default); new records do not get it. Like RenamedFrom it is
	// read only by the generate that adds the column and ignored after.
	Backfill json.RawMessage `json:"backfill,omitempty"`
}

// Reference makes a column a foreign key to another table's id.
type Reference struct {
	Table    string `json:"table"`
	OnDelete string `json:"on_delete,omitempty"`
}

// Column types of CONTRACT 4.1; what each is lives in its registry entry
// (ColumnType, type_<name>.go).
const (
	TypeText        = "text"
	TypeInteger     = "integer"
	TypeNumber      = "number"
	TypeDecimal     = "decimal"
	TypeBoolean     = "boolean"
	TypeTimestamp   = "timestamp"
	TypeDate        = "date"
	TypeEmail       = "email"
	TypeURL         = "url"
	TypeUUID        = "uuid"
	TypeEnum        = "enum"
	TypeJSON        = "json"
	TypePassword    = "password"
	TypePassthrough = "passthrough"
)

// Permission levels of CONTRACT 5.3.
const (
	LevelPublic        = "public"
	LevelAuthenticated = "authenticated"
	LevelOwner         = "owner"
	LevelKey           = "key"
)

// ID types of a table's primary key.
const (
	IDInteger = "integer"
	IDUUID    = "uuid"
)

// On-delete actions of a reference.
const (
	OnDeleteRestrict = "restrict"
	OnDeleteCascade  = "cascade"
	OnDeleteSetNull  = "set_null"
)

// System column names, present on every managed table.
const (
	ColID        = "id"
	ColCreatedAt = "created_at"
	ColUpdatedAt = "updated_at"
)

// Parse decodes a document, rejecting unknown keys so typos do not pass
// silently as missing constraints.
func Parse(data []byte) (Document, error) {
	var d Document
	dec := json.NewDecoder(bytesReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return Document{}, err
	}
	if d.Tables == nil {
		d.Tables = []Table{}
	}
	return d, nil
}

// Table returns the table of the given name.
func (d Document) Table(name string) (Table, bool) {
	for _, t := range d.Tables {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// Column returns the column of the given name.
func (t Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}
