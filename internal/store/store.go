package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/events"
	"github.com/tablesmith/tablesmith/schema"
)

// ErrNotFound is returned when a row does not exist.
var ErrNotFound = errors.New("not found")

// ErrDuplicate is returned when a unique value (an e-mail) is taken.
var ErrDuplicate = errors.New("duplicate")

// ErrStaleVersion is returned by PublishVersion and PublishExternal when
// another generate published first.
var ErrStaleVersion = errors.New("the published version changed meanwhile")

// Store reads and writes the control schema.
type Store struct {
	DB *sql.DB
	// Servers opens the data servers (docs/deployment.md): the pool for
	// schema work on the one a project's data_server names. Nil when
	// none is configured: every project's tables are then on DB.
	Servers func(name string) (*sql.DB, error)
}

// DefaultServer names database_url as a data server: where projects whose
// data_server is NULL keep their tables, as every project did before
// data servers.
const DefaultServer = "default"

// Account is a platform account.
type Account struct {
	ID           int64     `json:"id"`
	Email        string    `json:"email"`
	Name         string    `json:"name"`
	Plan         string    `json:"plan"`
	CreatedAt    time.Time `json:"created_at"`
	PasswordHash string    `json:"-"`
	// EmailVerified: the owner followed a verification (or reset) link
	// mailed to Email.
	EmailVerified bool `json:"email_verified"`
	// TOTPEnabled: logins ask for a second factor.
	TOTPEnabled bool `json:"totp_enabled"`
	// SessionGen is the session generation (auth.Session): sessions
	// issued at an older one are over.
	SessionGen int64 `json:"-"`
}

// Project is a project row without its draft.
type Project struct {
	ID               string          `json:"id"`
	AccountID        int64           `json:"-"`
	Name             string          `json:"name"`
	Engine           string          `json:"engine"`
	Connection       json.RawMessage `json:"-"`
	PublishedVersion int             `json:"published_version"`
	// DataServer is the data server that holds a managed project's
	// tables; "" is database_url (DefaultServer).
	DataServer string `json:"-"`
	// MovingTo is set while the project moves to another data server.
	MovingTo  string    `json:"-"`
	CORS      CORS      `json:"cors"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// CORS is a project's cross-origin setting (internal/cors).
type CORS struct {
	// AllowedOrigins are exact origins, or ["*"] (the default): any origin.
	AllowedOrigins []string `json:"allowed_origins"`
}

// DefaultCORS is the setting of a project that never set one.
func DefaultCORS() CORS { return CORS{AllowedOrigins: []string{"*"}} }

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// RandomID returns n characters of [a-z0-9] from crypto/rand.
func RandomID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b)
}

func isUniqueViolation(err error) bool {
	var pe *pq.Error
	return errors.As(err, &pe) && pe.Code == "23505"
}

// Secret returns the master secret kept in the control schema, creating
// it on first use; concurrent first calls agree on one value.
func (s *Store) Secret(ctx context.Context) (string, error) {
	candidate := RandomID(48)
	if _, err := s.DB.ExecContext(ctx, `INSERT INTO tablesmith.settings (key, value) VALUES ('secret', $1)
		ON CONFLICT (key) DO NOTHING`, candidate); err != nil {
		return "", err
	}
	// A separate statement: it sees whichever insert won, ours or a
	// concurrent caller's (a single statement's snapshot might not).
	var v string
	err := s.DB.QueryRowContext(ctx, `SELECT value FROM tablesmith.settings WHERE key = 'secret'`).Scan(&v)
	return v, err
}

// CreateAccount inserts an account; ErrDuplicate if the e-mail is taken.
func (s *Store) CreateAccount(ctx context.Context, email, name, passwordHash, plan string) (Account, error) {
	a := Account{Email: email, Name: name, Plan: plan, PasswordHash: passwordHash}
	err := s.DB.QueryRowContext(ctx, `INSERT INTO tablesmith.accounts (email, name, password_hash, plan)
		VALUES ($1, $2, $3, $4) RETURNING id, created_at`, email, name, passwordHash, plan).Scan(&a.ID, &a.CreatedAt)
	if isUniqueViolation(err) {
		return Account{}, ErrDuplicate
	}
	return a, err
}

const accountCols = `id, email, name, plan, created_at, password_hash, email_verified_at IS NOT NULL, totp_secret IS NOT NULL, session_gen`

func scanAccount(row interface{ Scan(...any) error }) (Account, error) {
	var a Account
	err := row.Scan(&a.ID, &a.Email, &a.Name, &a.Plan, &a.CreatedAt, &a.PasswordHash, &a.EmailVerified, &a.TOTPEnabled, &a.SessionGen)
	if errors.Is(err, sql.ErrNoRows) {
		return a, ErrNotFound
	}
	return a, err
}

// AccountByEmail finds an account by its (lower-cased) e-mail.
func (s *Store) AccountByEmail(ctx context.Context, email string) (Account, error) {
	return scanAccount(s.DB.QueryRowContext(ctx, `SELECT `+accountCols+` FROM tablesmith.accounts WHERE email = $1`, email))
}

// AccountByID finds an account by id.
func (s *Store) AccountByID(ctx context.Context, id int64) (Account, error) {
	return scanAccount(s.DB.QueryRowContext(ctx, `SELECT `+accountCols+` FROM tablesmith.accounts WHERE id = $1`, id))
}

// SetPlan moves an account to another plan.
func (s *Store) SetPlan(ctx context.Context, email, plan string) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.accounts SET plan = $2 WHERE email = $1`, email, plan)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// CountProjects counts an account's projects.
func (s *Store) CountProjects(ctx context.Context, accountID int64) (int, error) {
	var n int
	err := s.DB.QueryRowContext(ctx, `SELECT count(*) FROM tablesmith.projects WHERE account_id = $1`, accountID).Scan(&n)
	return n, err
}

// CreateProject inserts a project and, for a managed engine on
// database_url, creates its schema in the same transaction; on a data
// server (dataServer not "") its first generate creates it, in the
// transaction that fills it. maxProjects < 0 means no limit; the count
// is checked under a lock on the account so two concurrent creates
// cannot both pass it. It returns ErrLimit when the plan allows no more.
func (s *Store) CreateProject(ctx context.Context, accountID int64, name, engine string, connection json.RawMessage, draft json.RawMessage, maxProjects int, dataServer string) (Project, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return Project{}, err
	}
	defer tx.Rollback()
	if err := checkProjectLimit(ctx, tx, accountID, maxProjects); err != nil {
		return Project{}, err
	}
	if dataServer == DefaultServer || engine != EngineManaged {
		dataServer = ""
	}
	p := Project{ID: RandomID(12), AccountID: accountID, Name: name, Engine: engine, Connection: connection, CORS: DefaultCORS(), DataServer: dataServer}
	if len(draft) == 0 {
		draft = json.RawMessage(`{"tables": []}`)
	}
	var conn any
	if len(connection) > 0 {
		conn = string(connection)
	}
	err = tx.QueryRowContext(ctx, `INSERT INTO tablesmith.projects (id, account_id, name, engine, connection, draft, data_server)
		VALUES ($1, $2, $3, $4, $5, $6, nullif($7, '')) RETURNING created_at, updated_at`,
		p.ID, accountID, name, engine, conn, string(draft), dataServer).Scan(&p.CreatedAt, &p.UpdatedAt)
	if err != nil {
		return Project{}, err
	}
	if engine == EngineManaged && dataServer == "" {
		if _, err := tx.ExecContext(ctx, `CREATE SCHEMA `+schema.QuoteIdent(schema.ProjectSchema(p.ID))); err != nil {
			return Project{}, fmt.Errorf("create project schema: %w", err)
		}
	}
	return p, tx.Commit()
}

// checkProjectLimit locks the account for the rest of tx, so concurrent
// creates are counted one after the other, and returns ErrLimit when the
// plan allows no more projects (maxProjects < 0: no limit).
func checkProjectLimit(ctx context.Context, tx *sql.Tx, accountID int64, maxProjects int) error {
	if _, err := tx.ExecContext(ctx, `SELECT 1 FROM tablesmith.accounts WHERE id = $1 FOR UPDATE`, accountID); err != nil {
		return err
	}
	if maxProjects < 0 {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM tablesmith.projects WHERE account_id = $1`, accountID).Scan(&n); err != nil {
		return err
	}
	if n >= maxProjects {
		return ErrLimit
	}
	return nil
}

// ErrMoving is returned by PublishVersion for a project that is moving
// to another data server.
var ErrMoving = errors.New("the project is moving to another data server")

// ErrLimit is returned when the account's plan allows no more projects.
var ErrLimit = errors.New("plan limit reached")

// Engines a project can use.
const (
	EngineManaged  = "postgres"
	EngineExternal = "postgres_external"
)

const projectCols = `id, account_id, name, engine, connection, published_version, cors_allowed_origins, coalesce(data_server, ''), coalesce(moving_to, ''), created_at, updated_at`

func scanProject(sc interface{ Scan(...any) error }) (Project, error) {
	var p Project
	var conn []byte
	var origins []string
	err := sc.Scan(&p.ID, &p.AccountID, &p.Name, &p.Engine, &conn, &p.PublishedVersion, pq.Array(&origins), &p.DataServer, &p.MovingTo, &p.CreatedAt, &p.UpdatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return p, ErrNotFound
	}
	p.Connection = conn
	p.CORS = DefaultCORS()
	if origins != nil {
		p.CORS.AllowedOrigins = origins
	}
	return p, err
}

// Project returns a project by id.
func (s *Store) Project(ctx context.Context, id string) (Project, error) {
	return scanProject(s.DB.QueryRowContext(ctx, `SELECT `+projectCols+` FROM tablesmith.projects WHERE id = $1`, id))
}

// Projects lists an account's projects, oldest first.
func (s *Store) Projects(ctx context.Context, accountID int64) ([]Project, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT `+projectCols+` FROM tablesmith.projects WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Project{}
	for rows.Next() {
		p, err := scanProject(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// RenameProject changes a project's display name.
func (s *Store) RenameProject(ctx context.Context, id, name string) (Project, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return Project{}, err
	}
	defer tx.Rollback()
	p, err := scanProject(tx.QueryRowContext(ctx, `UPDATE tablesmith.projects SET name = $2, updated_at = now()
		WHERE id = $1 RETURNING `+projectCols, id, name))
	if err != nil {
		return p, err
	}
	// Loaded versions carry the name (the API document's title).
	if err := events.Notify(ctx, tx, events.ProjectChanged{ProjectID: id}); err != nil {
		return p, err
	}
	return p, tx.Commit()
}

// SetProjectCORS stores a project's allowed origins (already normalized;
// nil: the default) and tells every node, whose registries hold the
// compiled list, to load the project again.
func (s *Store) SetProjectCORS(ctx context.Context, id string, origins []string) (Project, error) {
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return Project{}, err
	}
	defer tx.Rollback()
	var stored any
	if origins != nil {
		stored = pq.Array(origins)
	}
	p, err := scanProject(tx.QueryRowContext(ctx, `UPDATE tablesmith.projects SET cors_allowed_origins = $2, updated_at = now()
		WHERE id = $1 RETURNING `+projectCols, id, stored))
	if err != nil {
		return p, err
	}
	if err := events.Notify(ctx, tx, events.ProjectChanged{ProjectID: id}); err != nil {
		return p, err
	}
	return p, tx.Commit()
}

// DeleteProject removes a project, its keys and versions, and drops its
// schema with every table in it, all in one transaction.
func (s *Store) DeleteProject(ctx context.Context, id string) error {
	// An index build running on the project's tables would hold the
	// schema's drop up until it ends: it is stopped, and no other starts
	// until the project is gone.
	release, err := s.stopBuilder(ctx, id)
	if err != nil {
		return err
	}
	defer release()
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := UnboundedTx(ctx, tx); err != nil { // dropping a large schema
		return err
	}
	var engine, server string
	err = tx.QueryRowContext(ctx, `DELETE FROM tablesmith.projects WHERE id = $1 RETURNING engine, coalesce(data_server, '')`, id).Scan(&engine, &server)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	switch {
	case engine == EngineManaged && server == "":
		if _, err := tx.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+schema.QuoteIdent(schema.ProjectSchema(id))+` CASCADE`); err != nil {
			return fmt.Errorf("drop project schema: %w", err)
		}
	case engine == EngineManaged:
		// Its schema is on another server: the drop is listed here, in
		// the deletion's transaction, runs right after, and is retried
		// by DropLeftSchemas until it succeeds.
		if err := leaveSchema(ctx, tx, id, server, "deleted", true); err != nil {
			return err
		}
	}
	// An old copy a move left goes too, confirmed or not.
	if _, err := tx.ExecContext(ctx, `UPDATE tablesmith.schema_drops SET confirmed = true WHERE project_id = $1`, id); err != nil {
		return err
	}
	if err := events.Notify(ctx, tx, events.ProjectChanged{ProjectID: id}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	release() // dropLeftSchemas takes the build lock on each server itself
	// Failing here leaves the listed drops for the sweep: the project is
	// gone either way.
	_, _ = s.dropLeftSchemas(ctx, id)
	return nil
}

// leaveSchema lists a project schema on a data server to drop
// (DropLeftSchemas): at once when confirmed, else when a move is.
func leaveSchema(ctx context.Context, tx *sql.Tx, projectID, server, reason string, confirmed bool) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.schema_drops (project_id, data_server, reason, confirmed)
		VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, data_server) DO UPDATE SET reason = excluded.reason,
			confirmed = excluded.confirmed, created_at = now()`, projectID, server, reason, confirmed)
	return err
}

// Draft returns a project's draft document.
func (s *Store) Draft(ctx context.Context, id string) (json.RawMessage, time.Time, error) {
	var doc []byte
	var at time.Time
	err := s.DB.QueryRowContext(ctx, `SELECT draft, draft_updated_at FROM tablesmith.projects WHERE id = $1`, id).Scan(&doc, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, at, ErrNotFound
	}
	return doc, at, err
}

// PutDraft replaces a project's draft document.
func (s *Store) PutDraft(ctx context.Context, id string, doc json.RawMessage) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE tablesmith.projects SET draft = $2, draft_updated_at = now(), updated_at = now() WHERE id = $1`, id, string(doc))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Version is a published schema version.
type Version struct {
	Version   int             `json:"version"`
	Document  json.RawMessage `json:"document"`
	Applied   json.RawMessage `json:"applied"`
	CreatedAt time.Time       `json:"created_at"`
	// Indexes are the index builds that run after the version's
	// migration committed (Versions and VersionByNumber fill it).
	Indexes *IndexStatus `json:"indexes,omitempty"`
}

// LatestVersion returns the newest published version; ErrNotFound before
// the first generate.
func (s *Store) LatestVersion(ctx context.Context, projectID string) (Version, error) {
	var v Version
	err := s.DB.QueryRowContext(ctx, `SELECT version, document, applied, created_at FROM tablesmith.schema_versions
		WHERE project_id = $1 ORDER BY version DESC LIMIT 1`, projectID).Scan(&v.Version, &v.Document, &v.Applied, &v.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return v, ErrNotFound
	}
	return v, err
}

// Versions lists the published versions, newest first.
func (s *Store) Versions(ctx context.Context, projectID string) ([]Version, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT version, document, applied, created_at FROM tablesmith.schema_versions
		WHERE project_id = $1 ORDER BY version DESC`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Version{}
	for rows.Next() {
		var v Version
		if err := rows.Scan(&v.Version, &v.Document, &v.Applied, &v.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.withIndexes(ctx, projectID, out)
}
