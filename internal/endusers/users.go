package endusers

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

// userQueries are the statements on one published version's auth table,
// built once from the compiled schema (identifiers only from there).
type userQueries struct {
	pub *translate.Published
	// db holds the project's tables: the service's pool, or the fronted
	// database's for an external project.
	db    *sql.DB
	table *schema.CTable
	sql   *translate.TableSQL
	email *schema.CColumn
	// password is the auth table's (first) password column.
	password *schema.CColumn
	// byEmail and byID select the id as text, the password hash (byEmail
	// only), whether the user is active, the e-mail, and the record as
	// JSON.
	byEmail, byID string
	// status selects whether the user is active; no row: no such user.
	status string
}

// user is an auth-table row as sign-in needs it.
type user struct {
	ID       string
	Hash     string
	Active   bool
	Email    string
	Record   json.RawMessage
	Existing bool
}

// queriesFor returns the auth-table statements of an entry's published
// version, building them on first use of that version.
func (a *Auth) queriesFor(entry *registry.Entry) *userQueries {
	pub := entry.Published
	a.mu.Lock()
	defer a.mu.Unlock()
	if q, ok := a.queries[entry.ProjectID]; ok && q.pub == pub {
		return q
	}
	q := buildUserQueries(pub)
	q.db = a.cfg.DB
	if entry.Tables != nil {
		q.db = entry.Tables.DB()
	}
	a.queries[entry.ProjectID] = q
	return q
}

func buildUserQueries(pub *translate.Published) *userQueries {
	t := pub.Compiled.Auth
	ts := pub.Tables[t.Name]
	q := &userQueries{pub: pub, table: t, sql: ts}
	q.email, _ = t.Column("email")
	pk := "t." + t.PK.Ident
	// An auth table without is_active has only active users; a null
	// is_active is not false, so it does not disable anyone.
	active := "true"
	if c, ok := t.Column("is_active"); ok && c.Type == schema.TypeBoolean {
		active = "(t." + c.Ident + " IS NOT FALSE)"
	}
	for _, c := range t.Columns {
		if c.Kind.Traits.Secret {
			q.password = c
			break
		}
	}
	hash := "t." + q.password.Ident
	email := "t." + q.email.Ident + "::text"
	record := "row_to_json(_r)::text FROM " + ts.Rel + " t CROSS JOIN LATERAL (SELECT " + ts.Projection + ") _r"
	q.byEmail = "SELECT " + pk + "::text, " + hash + ", " + active + ", " + email + ", " + record +
		" WHERE t." + q.email.Ident + " = $1 ORDER BY " + pk + " LIMIT 1"
	q.byID = "SELECT " + pk + "::text, NULL::text, " + active + ", " + email + ", " + record + " WHERE " + pk + " = $1"
	q.status = "SELECT " + active + " FROM " + ts.Rel + " t WHERE " + pk + " = $1"
	return q
}

func (q *userQueries) scan(row *sql.Row) (user, error) {
	var u user
	var hash, email sql.NullString
	var rec []byte
	err := row.Scan(&u.ID, &hash, &u.Active, &email, &rec)
	if errors.Is(err, sql.ErrNoRows) {
		return user{}, nil
	}
	if err != nil {
		return user{}, err
	}
	u.Hash, u.Email, u.Record, u.Existing = hash.String, email.String, rec, true
	return u, nil
}

// userByEmail finds a user by normalized e-mail; Existing is false when
// there is none.
func (a *Auth) userByEmail(ctx context.Context, q *userQueries, email string) (user, error) {
	return q.scan(q.db.QueryRowContext(ctx, q.byEmail, email))
}

// userByID finds a user by id (in bound form).
func (a *Auth) userByID(ctx context.Context, q *userQueries, id any) (user, error) {
	return q.scan(q.db.QueryRowContext(ctx, q.byID, id))
}

// userStatus reports whether a user exists and is active.
func (a *Auth) userStatus(ctx context.Context, q *userQueries, id any) (exists, active bool, err error) {
	err = q.db.QueryRowContext(ctx, q.status, id).Scan(&active)
	if errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	return err == nil, active, err
}

// userIDValue converts a user id from its text form (token subject,
// session row) to the form bound against the auth table's key.
func userIDValue(t *schema.CTable, s string) (any, bool) {
	v, msg := schema.ParseQueryValue(&t.PK.Column, s)
	return v, msg == "" && s != ""
}

// recordID reads the id of a record that PostgreSQL rendered as JSON, as
// text: a number as written, a string unquoted.
func recordID(t *schema.CTable, rec json.RawMessage) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(rec, &m) != nil {
		return "", false
	}
	raw, ok := m[t.PK.Name]
	if !ok || len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	return strings.TrimSpace(string(raw)), true
}

// recordActive reads is_active of a rendered record (true when absent
// or null, as in userQueries).
func recordActive(rec json.RawMessage) bool {
	var m struct {
		IsActive *bool `json:"is_active"`
	}
	if json.Unmarshal(rec, &m) != nil || m.IsActive == nil {
		return true
	}
	return *m.IsActive
}
