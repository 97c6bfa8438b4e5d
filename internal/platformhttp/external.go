package platformhttp

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/extdb"
	"github.com/tablesmith/tablesmith/internal/publish"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/schema/introspect"
)

// This file is the postgres_external engine on the platform API (issue
// 10): creating a project from a connection, showing the connection and
// the introspection report, planning and generating against the fronted
// database, and "Refresh from database". Deps.External enables it.

// inspectTimeout bounds connecting to and reading a fronted database
// while a request waits.
const inspectTimeout = 30 * time.Second

// connectionInput is the connection of a postgres_external project.
type connectionInput struct {
	URL    string `json:"url"`
	Schema string `json:"schema"`
}

// connectionView is what a project shows of its connection: never the
// password.
type connectionView struct {
	URL    string       `json:"url"`
	Schema string       `json:"schema"`
	Status extdb.Health `json:"status"`
}

// introspectionReport is what the project keeps of its last
// introspection.
type introspectionReport struct {
	Unsupported []introspect.UnsupportedTable `json:"unsupported"`
	Notes       []introspect.Note             `json:"notes"`
}

// introspectionView is the report as a project shows it.
type introspectionView struct {
	introspectionReport
	IntrospectedAt *time.Time `json:"introspected_at,omitempty"`
}

func reportOf(in introspect.Result) introspectionReport {
	return introspectionReport{Unsupported: in.Unsupported, Notes: in.Notes}
}

// parseConnection reads the connection of a create request, adding a
// problem under "connection" when it is missing or malformed.
func parseConnection(raw json.RawMessage, problems map[string]string) connectionInput {
	var c connectionInput
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		problems["connection"] = `is required for postgres_external: {"url": "postgres://user:password@host:5432/database", "schema": "public"}`
		return c
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		problems["connection"] = `must be {"url": "postgres://...", "schema": "..."}`
		return c
	}
	c.URL, c.Schema = strings.TrimSpace(c.URL), strings.TrimSpace(c.Schema)
	switch {
	case c.URL == "":
		problems["connection"] = "url is required (postgres://user:password@host:5432/database)"
	case c.Schema == "":
		problems["connection"] = "schema is required (the PostgreSQL schema whose tables the API serves, e.g. public)"
	}
	return c
}

// connectionError maps a connection problem to the contract: a URL or
// schema name that is malformed is a VALIDATION_ERROR, anything found
// when connecting is INVALID_CONNECTION; both name the problem under
// details.connection, and info.problem carries its kind.
func connectionError(err error) error {
	p, ok := extdb.AsProblem(err)
	if !ok {
		return err
	}
	code := apierr.CodeInvalidConnection
	if p.Kind == extdb.ProblemInvalidURL || p.Kind == extdb.ProblemInvalidSchemaName {
		code = apierr.CodeValidation
	}
	e := apierr.Fields(code, "The connection cannot be used: "+p.Message, map[string]string{"connection": p.Message})
	e.Extra = map[string]string{"problem": p.Kind}
	e.Cause = err
	return e
}

// createExternal creates a project that fronts an existing database: the
// connection is checked and the schema read before anything is stored;
// the introspected document becomes the draft and the first published
// version at once, without any DDL.
func (h *Handler) createExternal(w http.ResponseWriter, r *http.Request, acc store.Account, name string, conn connectionInput) error {
	cfg := h.d.Config()
	plan := cfg.Plans.Get(acc.Plan, cfg.DefaultPlan)
	if plan.Projects >= 0 {
		// Checked before connecting, so a full plan costs no connection.
		n, err := h.d.Store.CountProjects(r.Context(), acc.ID)
		if err != nil {
			return err
		}
		if n >= plan.Projects {
			return planLimitError(acc.Plan, plan.Projects)
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), inspectTimeout)
	defer cancel()
	cat, err := h.d.External.Inspect(ctx, conn.URL, conn.Schema)
	if err != nil {
		return connectionError(err)
	}
	in := introspect.Read(cat)
	sealed, err := h.d.External.Seal(ctx, conn.URL)
	if err != nil {
		return err
	}
	doc, _ := json.Marshal(in.Document)
	report, _ := json.Marshal(reportOf(in))
	p, err := h.d.Store.CreateExternalProject(ctx, acc.ID, name,
		store.ExternalConnection{Schema: conn.Schema, MaskedURL: extdb.MaskURL(conn.URL), SealedURL: sealed}, doc, report, plan.Projects)
	if errors.Is(err, store.ErrLimit) {
		return planLimitError(acc.Plan, plan.Projects)
	}
	if err != nil {
		return err
	}
	h.audit(ctx, acc, p, "project.created", "", map[string]any{"name": p.Name, "engine": p.Engine})
	w.Header().Set("Location", "/api/projects/"+p.ID)
	envelope.Write(w, http.StatusCreated, envelope.Success{Data: h.projectView(r, acc, p),
		Message: fmt.Sprintf("Connected: %s served, %d left out", countOf(len(in.Document.Tables), "table"), len(in.Unsupported))})
	return nil
}

// describeExternal adds the connection (password masked) and the last
// introspection report to a project's view.
func (h *Handler) describeExternal(ctx context.Context, v *projectView, p store.Project) {
	conn, ok := store.ExternalConnectionOf(p)
	if !ok {
		return
	}
	v.Connection = &connectionView{URL: conn.MaskedURL, Schema: conn.Schema, Status: extdb.Health{State: extdb.StateUnknown}}
	if h.d.External != nil {
		if pool, err := h.d.External.Pool(ctx, conn.SealedURL); err == nil {
			v.Connection.Status = pool.Health()
		} else {
			v.Connection.Status = extdb.Health{State: extdb.StateDown, Problem: apierr.As(err).Message}
		}
	}
	raw, at, err := h.d.Store.Introspection(ctx, p.ID)
	if err != nil || len(raw) == 0 {
		return
	}
	var rep introspectionView
	if json.Unmarshal(raw, &rep.introspectionReport) == nil {
		rep.IntrospectedAt = at
		v.Introspection = &rep
	}
}

// externalPool returns the shared pool of a project's database.
func (h *Handler) externalPool(ctx context.Context, p store.Project) (*extdb.Pool, error) {
	conn, ok := store.ExternalConnectionOf(p)
	if !ok || h.d.External == nil {
		return nil, apierr.New(apierr.CodeUnavailable, "Fronting existing databases is not enabled on this server")
	}
	return h.d.External.Pool(ctx, conn.SealedURL)
}

// externalPlan is the plan of a fronted project: the same diff as for a
// managed one, rendered for the user's schema (no trigram indexes: the
// extension may not be there), with the changes Tablesmith must not make
// to a database it does not own refused.
func (h *Handler) externalPlan(ctx context.Context, p store.Project, draft schema.Document) (publish.Captured, schema.Plan, error) {
	if problems := schema.Validate(draft); len(problems) > 0 {
		return publish.Captured{}, schema.Plan{}, publish.Invalid(problems)
	}
	pub, err := publish.Published(ctx, h.d.Store, p)
	if err != nil {
		return publish.Captured{}, schema.Plan{}, err
	}
	c, err := publish.KeepCapture(ctx, h.d.Store, p.ID, pub, draft)
	if err != nil {
		return c, schema.Plan{}, err
	}
	conn, _ := store.ExternalConnectionOf(p)
	plan := schema.Diff(schema.DDL{Schema: conn.Schema}, pub, c.Document)
	c.Explain(&plan)
	guardExternalPlan(&plan, pub, c.Document)
	return c, plan, nil
}

// guardExternalPlan refuses, change by change, what generate must not do
// to a fronted database: alter or drop a column whose type Tablesmith
// does not model (passthrough) or that is the database's own enum type,
// change a table's primary key, or add a foreign key to a fronted table
// whose key is not named id (the DDL references id).
func guardExternalPlan(plan *schema.Plan, pub, draft schema.Document) {
	for i := range plan.Changes {
		c := &plan.Changes[i]
		if c.Unsupported != "" {
			continue
		}
		if pt, ok := publishedTable(pub, draft, c.Table); ok && pt.External != nil && c.Column != "" {
			c.Unsupported = frontedColumnRefusal(c, pt, draft)
		}
		if c.Unsupported == "" && (c.Kind == schema.ChangeAddColumn || c.Kind == schema.ChangeAlterColumn) {
			c.Unsupported = frontedKeyRefusal(c, draft)
		}
	}
}

// publishedTable finds the published table a change to the draft's table
// is about, following a rename in the draft.
func publishedTable(pub, draft schema.Document, table string) (schema.Table, bool) {
	if t, ok := pub.Table(table); ok {
		return t, true
	}
	if dt, ok := draft.Table(table); ok && dt.RenamedFrom != "" {
		return pub.Table(dt.RenamedFrom)
	}
	return schema.Table{}, false
}

// publishedColumnName is the name the changed column has in the published
// fronted table pt: the old name for a rename, in the change or the draft.
func publishedColumnName(c *schema.Change, pt schema.Table, draft schema.Document) string {
	if c.Kind == schema.ChangeRenameColumn {
		return c.From
	}
	if dt, ok := draft.Table(c.Table); ok {
		if dc, ok := dt.Column(c.Column); ok && dc.RenamedFrom != "" {
			if _, old := pt.Column(dc.RenamedFrom); old {
				return dc.RenamedFrom
			}
		}
	}
	return c.Column
}

// frontedColumnRefusal says why a change to a column of the fronted table
// pt cannot be generated, or "" when it can.
func frontedColumnRefusal(c *schema.Change, pt schema.Table, draft schema.Document) string {
	name := publishedColumnName(c, pt, draft)
	pc, ok := pt.Column(name)
	if !ok {
		return ""
	}
	alterOrDrop := c.Kind == schema.ChangeAlterColumn || c.Kind == schema.ChangeDropColumn
	switch {
	case c.Kind == schema.ChangeRenameColumn:
	case name == pt.External.PrimaryKey && alterOrDrop:
		return "the primary key belongs to the database; change it there, then refresh from the database"
	case pc.Type == schema.TypePassthrough && alterOrDrop:
		return fmt.Sprintf("column of database type %s, which Tablesmith keeps read-only and never alters or drops; change it in the database, then refresh", pc.PGType)
	case pc.Type == schema.TypeEnum && pc.PGType != "" && c.Kind == schema.ChangeAlterColumn:
		return fmt.Sprintf("column of the database's enum type %s; change the type in the database, then refresh", pc.PGType)
	}
	return ""
}

// frontedKeyRefusal says why a foreign key the change adds cannot point
// at its fronted target (the DDL references id), or "" when it can.
func frontedKeyRefusal(c *schema.Change, draft schema.Document) string {
	dt, ok := draft.Table(c.Table)
	if !ok {
		return ""
	}
	dc, ok := dt.Column(c.Column)
	if !ok || dc.References == nil {
		return ""
	}
	if target, ok := draft.Table(dc.References.Table); ok && target.External != nil && target.External.PrimaryKey != schema.ColID {
		return fmt.Sprintf("%s is keyed by %s, not id; add this foreign key in the database, then refresh", target.Name, target.External.PrimaryKey)
	}
	return ""
}

// checkRows runs a plan's prechecks (read-only) where the project's
// tables are.
func (h *Handler) checkRows(ctx context.Context, p store.Project, checks []schema.Precheck) ([]publish.Violation, error) {
	if p.Engine != store.EngineExternal {
		return publish.CheckProjectRows(ctx, h.d.Store, p.ID, checks)
	}
	if len(checks) == 0 {
		return []publish.Violation{}, nil
	}
	pool, err := h.externalPool(ctx, p)
	if err != nil {
		return nil, err
	}
	return publish.CheckRows(ctx, pool.DB, checks)
}

// generateExternal publishes the draft of a fronted project: the plan's
// statements run in a transaction of the fronted database, the version
// is recorded in the control schema (store.PublishExternal), and the
// plan's after-commit statements (and only those) run afterwards. A plan
// without changes touches the fronted database not at all.
func (h *Handler) generateExternal(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project, confirmDestructive bool) error {
	ctx := r.Context()
	raw, _, err := h.d.Store.Draft(ctx, p.ID)
	if err != nil {
		return err
	}
	draft, err := schema.Parse(raw)
	if err != nil {
		return err
	}
	captured, plan, err := h.externalPlan(ctx, p, draft)
	if err != nil {
		return err
	}
	draft = captured.Document
	if err := publish.Refusal(plan, confirmDestructive); err != nil {
		return err
	}
	var db *sql.DB
	if len(plan.Statements) > 0 || len(plan.Prechecks) > 0 || len(plan.Locks) > 0 || len(plan.After) > 0 {
		pool, err := h.externalPool(ctx, p)
		if err != nil {
			return err
		}
		db = pool.DB
	}
	doc, _ := json.Marshal(draft)
	applied, _ := json.Marshal(plan.Changes)
	m := publish.Migration{Locks: plan.Locks, Prechecks: plan.Prechecks, Statements: plan.Statements}
	version, err := h.d.Store.PublishExternal(ctx, p.ID, p.PublishedVersion, doc, applied, publish.External(db, m))
	if err != nil {
		return publish.MigrationError(err)
	}
	h.d.Registry.Invalidate(p.ID)
	h.audit(ctx, acc, p, "schema.generated", "", map[string]any{"version": version, "changes": len(plan.Changes)})
	after := []store.FinishStep{}
	if len(plan.After) > 0 {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
		after = store.RunAfterCommit(actx, db, plan.After, 0)
		cancel()
		for _, step := range after {
			if step.Error != "" {
				h.d.Logger.Warn("generate of a fronted database left a statement undone", "project", p.ID, "statement", step.Statement, "err", step.Error)
			}
		}
	}
	notes := append(plan.Notes, publish.AmendDraft(ctx, h.d.Store, p.ID, raw, captured)...)
	envelope.Write(w, http.StatusOK, envelope.Success{Message: "API generated", Data: map[string]any{
		"version": version, "endpoints": endpoints(p.ID, draft), "applied": plan.Changes,
		"after_commit": after, "notes": notes}})
	return nil
}

// refreshResult is the answer of "Refresh from database".
type refreshResult struct {
	// Changes are the differences between the draft and the database,
	// each saying whether the database or the draft made it.
	Changes []introspect.Change `json:"changes"`
	// Replaced lists unpublished edits that applying replaces.
	Replaced []string `json:"replaced"`
	introspectionReport
	// Applied says whether the refresh was applied: the database's
	// changes published (Version) and merged into the draft.
	Applied bool `json:"applied"`
	Version int  `json:"version"`
}

// refreshSchema re-reads the fronted database and shows how it differs
// from the draft. With {"apply": true} it adopts the database's changes:
// the published version follows the database (a new version, no DDL)
// and the draft gets the same changes while keeping its own unpublished
// edits, so a later generate applies exactly those edits. It never
// changes the fronted database.
func (h *Handler) refreshSchema(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		Apply bool `json:"apply"`
	}
	if r.ContentLength != 0 {
		if err := h.decode(w, r, &in); err != nil {
			return err
		}
	}
	conn, ok := store.ExternalConnectionOf(p)
	if !ok {
		return apierr.Fields(apierr.CodeValidation, "Refresh from database applies to projects that front an existing database",
			map[string]string{"engine": "is " + p.Engine + "; refresh needs postgres_external"})
	}
	if h.d.External == nil {
		return apierr.New(apierr.CodeUnavailable, "Fronting existing databases is not enabled on this server")
	}
	ctx, cancel := context.WithTimeout(r.Context(), inspectTimeout)
	defer cancel()
	raw, err := h.d.External.Unseal(ctx, conn.SealedURL)
	if err != nil {
		return apierr.New(apierr.CodeUnavailable, "The project's database connection cannot be read; enter it again")
	}
	cat, err := h.d.External.Inspect(ctx, raw, conn.Schema)
	if err != nil {
		if prob, ok := extdb.AsProblem(err); ok && prob.Kind == extdb.ProblemCannotConnect {
			e := apierr.Fields(apierr.CodeUnavailable, "The database cannot be reached: "+prob.Message, map[string]string{"connection": prob.Message})
			e.Extra = map[string]string{"problem": prob.Kind}
			return e
		}
		return connectionError(err)
	}
	intro := introspect.Read(cat)
	pub, err := publish.Published(ctx, h.d.Store, p)
	if err != nil {
		return err
	}
	draft, err := publish.Draft(ctx, h.d.Store, p.ID)
	if err != nil {
		return err
	}
	rec := introspect.Reconcile(pub, draft, intro.Document)
	res := refreshResult{Changes: rec.Changes, Replaced: rec.Replaced, introspectionReport: reportOf(intro), Version: p.PublishedVersion}
	if !in.Apply {
		envelope.Write(w, http.StatusOK, envelope.Success{Data: res, Message: refreshMessage(rec.Changes, false)})
		return nil
	}
	newPub, notes := introspect.RepairPublished(rec.Published)
	res.Notes = append(res.Notes, notes...)
	if !sameDocument(newPub, pub) {
		var adopted []schema.Change
		for _, c := range rec.Changes {
			if c.Origin == introspect.OriginDatabase {
				adopted = append(adopted, schema.Change{Kind: c.Kind, Table: c.Table, Column: c.Column,
					Description: "refresh: " + c.Description, Statements: []string{}})
			}
		}
		doc, _ := json.Marshal(newPub)
		applied, _ := json.Marshal(adopted)
		version, err := h.d.Store.PublishExternal(ctx, p.ID, p.PublishedVersion, doc, applied, nil)
		if err != nil {
			return publish.MigrationError(err)
		}
		res.Version = version
		h.d.Registry.Invalidate(p.ID)
	}
	newDraft, _ := json.Marshal(rec.Draft)
	if err := h.d.Store.PutDraft(ctx, p.ID, newDraft); err != nil {
		return err
	}
	report, _ := json.Marshal(res.introspectionReport)
	if err := h.d.Store.SetIntrospection(ctx, p.ID, report); err != nil {
		return err
	}
	res.Applied = true
	h.audit(ctx, acc, p, "schema.refreshed", "", map[string]any{"version": res.Version, "changes": len(rec.Changes)})
	envelope.Write(w, http.StatusOK, envelope.Success{Data: res, Message: refreshMessage(rec.Changes, true)})
	return nil
}

func refreshMessage(changes []introspect.Change, applied bool) string {
	n := 0
	for _, c := range changes {
		if c.Origin == introspect.OriginDatabase {
			n++
		}
	}
	switch {
	case n == 0:
		return "The database matches the published schema"
	case applied:
		return fmt.Sprintf("Adopted %s made in the database", countOf(n, "change"))
	}
	return fmt.Sprintf("The database has %s the published schema does not; send {\"apply\": true} to adopt them", countOf(n, "change"))
}

func sameDocument(a, b schema.Document) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// updateConnection replaces a fronted project's connection (a rotated
// password, a moved server, another schema): the new one is checked as on
// create, then sealed and stored, and every node's API switches to it.
// The schema document stays as it is; "Refresh from database" shows what
// differs in the new place. It answers nothing itself: an error is the
// answer.
func (h *Handler) updateConnection(w http.ResponseWriter, r *http.Request, p store.Project, raw json.RawMessage) error {
	if p.Engine != store.EngineExternal || h.d.External == nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed",
			map[string]string{"connection": "only projects that front an existing database have a connection"})
	}
	problems := map[string]string{}
	conn := parseConnection(raw, problems)
	if len(problems) > 0 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	ctx, cancel := context.WithTimeout(r.Context(), inspectTimeout)
	defer cancel()
	if _, err := h.d.External.Inspect(ctx, conn.URL, conn.Schema); err != nil {
		return connectionError(err)
	}
	sealed, err := h.d.External.Seal(ctx, conn.URL)
	if err != nil {
		return err
	}
	if err := h.d.Store.SetConnection(ctx, p.ID, store.ExternalConnection{Schema: conn.Schema, MaskedURL: extdb.MaskURL(conn.URL), SealedURL: sealed}); err != nil {
		return err
	}
	h.d.Registry.Invalidate(p.ID)
	return nil
}
