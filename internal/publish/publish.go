// Package publish turns a project's draft schema into its published
// version: the plan, the checks of existing rows, the migration, and the
// work that follows its commit. The platform API's generate and `caddy
// tablesmith schema apply` both run it, so they answer alike. It owns the
// procedure (what a migration runs and what its outcome means); the store
// owns the control schema's records of it and the transaction that keeps
// them and the project's schema together (store.PublishVersion).
package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// Options adjust a generate.
type Options struct {
	// ConfirmDestructive allows changes that lose data.
	ConfirmDestructive bool
	// Trigram says whether pg_trgm is installed (search indexes).
	Trigram bool
	// LockTimeout bounds each lock wait of the migration (default
	// store.DefaultLockTimeout).
	LockTimeout time.Duration
	// FinishTimeout bounds the work after the commit (default 5 minutes);
	// what it leaves undone is finished by the next generate.
	FinishTimeout time.Duration
	// BeforeStatement is a test hook run before each migration statement.
	BeforeStatement func(i int, statement string) error
	// Committed, when set, runs as soon as the new version has committed,
	// before the after-commit work: the caller drops its cached API so
	// that requests use the new names at once (other nodes hear the
	// NOTIFY sent with the commit).
	Committed func(version int)
}

// Result is what a generate did.
type Result struct {
	Version    int             `json:"version"`
	Applied    []schema.Change `json:"applied"`
	Statements []string        `json:"statements"`
	// AfterCommit are the statements run once the migration committed;
	// a step with an error is left for the next generate to finish.
	AfterCommit []store.FinishStep `json:"after_commit"`
	// Indexes are the version's index builds as the generate answers:
	// they run in the background (Builder) after it.
	Indexes  *store.IndexStatus `json:"indexes"`
	Notes    []string           `json:"notes,omitempty"`
	Document schema.Document    `json:"-"`
}

// Pending returns the after-commit steps that failed.
func (r Result) Pending() []store.FinishStep {
	var out []store.FinishStep
	for _, s := range r.AfterCommit {
		if s.Error != "" {
			out = append(out, s)
		}
	}
	return out
}

// Draft reads and parses a project's draft.
func Draft(ctx context.Context, st *store.Store, projectID string) (schema.Document, error) {
	raw, _, err := st.Draft(ctx, projectID)
	if err != nil {
		return schema.Document{}, err
	}
	return schema.Parse(raw)
}

// Published returns the project's newest published document (empty
// before the first generate).
func Published(ctx context.Context, st *store.Store, p store.Project) (schema.Document, error) {
	if p.PublishedVersion == 0 {
		return schema.Document{Tables: []schema.Table{}}, nil
	}
	v, err := st.LatestVersion(ctx, p.ID)
	if err != nil {
		return schema.Document{}, err
	}
	return schema.Parse(v.Document)
}

// DDL is the DDL renderer for a project's schema.
func DDL(projectID string, trigram bool) schema.DDL {
	return schema.DDL{Schema: schema.ProjectSchema(projectID), Trigram: trigram}
}

// Plan validates a draft and computes the plan from the published
// document to it, with realtime on for every table a webhook names
// (KeepCapture).
func Plan(ctx context.Context, st *store.Store, p store.Project, draft schema.Document, trigram bool) (schema.Plan, error) {
	_, plan, err := planCaptured(ctx, st, p, draft, trigram)
	return plan, err
}

// planCaptured is Plan, with the document the plan publishes.
func planCaptured(ctx context.Context, st *store.Store, p store.Project, draft schema.Document, trigram bool) (Captured, schema.Plan, error) {
	if problems := schema.Validate(draft); len(problems) > 0 {
		return Captured{}, schema.Plan{}, Invalid(problems)
	}
	pub, err := Published(ctx, st, p)
	if err != nil {
		return Captured{}, schema.Plan{}, err
	}
	c, err := KeepCapture(ctx, st, p.ID, pub, draft)
	if err != nil {
		return c, schema.Plan{}, err
	}
	plan := schema.Diff(DDL(p.ID, trigram), pub, c.Document)
	c.Explain(&plan)
	return c, plan, nil
}

// Invalid is the error for a draft that fails validation.
func Invalid(problems schema.Problems) error {
	return apierr.Fields(apierr.CodeValidation, "The schema is not valid", problems)
}

// Generate publishes a project's draft: it checks the plan, runs the
// migration with its prechecks in one transaction together with the new
// version row, then finishes what runs after the commit. Refusals are
// *apierr.Error values of CONTRACT 4.3; every one of them leaves the
// database and the published version as they were.
func Generate(ctx context.Context, st *store.Store, projectID string, opt Options) (Result, error) {
	p, err := st.Project(ctx, projectID)
	if errors.Is(err, store.ErrNotFound) {
		return Result{}, apierr.New(apierr.CodeNotFound, "Project %q not found", projectID)
	}
	if err != nil {
		return Result{}, err
	}
	if err := managed(p); err != nil {
		return Result{}, err
	}
	if p.MovingTo != "" {
		return Result{}, apierr.New(apierr.CodeConflict, "Project %s is moving to another database server; generate again once the move is done", p.ID)
	}
	raw, _, err := st.Draft(ctx, p.ID)
	if err != nil {
		return Result{}, err
	}
	draft, err := schema.Parse(raw)
	if err != nil {
		return Result{}, err
	}
	if p.PublishedVersion > 0 {
		// Constraints an earlier generate left unvalidated go first, so
		// this migration starts from a complete database. (Its index
		// builds are the Builder's: this version records every index
		// still missing and supersedes the earlier builds.)
		heal := opt
		if heal.FinishTimeout <= 0 || heal.FinishTimeout > healTimeout {
			heal.FinishTimeout = healTimeout
		}
		_, _ = finish(ctx, st, p.ID, heal)
	}
	captured, plan, err := planCaptured(ctx, st, p, draft, opt.Trigram)
	if err != nil {
		return Result{}, err
	}
	draft = captured.Document
	if err := Refusal(plan, opt.ConfirmDestructive); err != nil {
		return Result{}, err
	}
	// The after-commit work's turn is taken before the commit, so the new
	// version's background index builds cannot start first and hold its
	// tables (nil: a build of an earlier version runs, and the builder
	// does this work once it is done).
	turn, err := st.TakeFinishTurn(ctx, p.ID)
	if err != nil {
		return Result{}, err
	}
	if turn != nil {
		defer turn.Release()
	}
	doc, _ := json.Marshal(draft)
	applied, _ := json.Marshal(plan.Changes)
	m := Migration{Locks: plan.Locks, Prechecks: plan.Prechecks, Statements: plan.Statements,
		LockTimeout: opt.LockTimeout, BeforeStatement: opt.BeforeStatement}
	v := store.NewVersion{Document: doc, Applied: applied, Indexes: DDL(p.ID, opt.Trigram).WantedIndexes(draft)}
	version, err := st.PublishVersion(ctx, p.ID, p.PublishedVersion, v, m.Run)
	if err != nil {
		return Result{}, MigrationError(err)
	}
	if opt.Committed != nil {
		opt.Committed(version)
	}
	res := Result{Version: version, Applied: plan.Changes, Statements: plan.Statements, Notes: plan.Notes, Document: draft}
	res.Notes = append(res.Notes, AmendDraft(ctx, st, p.ID, raw, captured)...)
	if turn != nil {
		res.AfterCommit, _ = finishIn(ctx, turn, opt)
	}
	if res.AfterCommit == nil {
		res.AfterCommit = []store.FinishStep{}
	}
	if v, err := st.VersionByNumber(ctx, p.ID, version); err == nil {
		res.Indexes = v.Indexes
	}
	return res, nil
}

// healTimeout bounds the after-commit work an earlier generate left,
// when it runs before a new migration: a validation waiting for a long
// transaction must not hold the new generate up for long.
const healTimeout = 30 * time.Second

// managed refuses projects that front an existing database: their
// migrations run on that database (platformhttp's generateExternal).
func managed(p store.Project) error {
	if p.Engine != store.EngineManaged {
		return apierr.New(apierr.CodeConflict, "Project %s fronts an existing database; generate it from the dashboard or POST /api/projects/%s/generate", p.ID, p.ID)
	}
	return nil
}

// finish runs store.Finish's constraint steps (validation, NOT NULL);
// index builds run in the background (Builder). It outlives the caller's
// context (a client that hangs up must not leave a step half done) but
// not FinishTimeout.
func finish(ctx context.Context, st *store.Store, projectID string, opt Options) ([]store.FinishStep, error) {
	fctx, cancel := finishContext(ctx, opt)
	defer cancel()
	return st.Finish(fctx, projectID, nil, opt.LockTimeout)
}

// finishIn is finish in a turn already taken.
func finishIn(ctx context.Context, turn *store.FinishTurn, opt Options) ([]store.FinishStep, error) {
	fctx, cancel := finishContext(ctx, opt)
	defer cancel()
	return turn.Finish(fctx, nil, opt.LockTimeout)
}

// finishContext bounds after-commit work by opt.FinishTimeout (default 5
// minutes); the client going away does not stop it.
func finishContext(ctx context.Context, opt Options) (context.Context, context.CancelFunc) {
	timeout := opt.FinishTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	return context.WithTimeout(context.WithoutCancel(ctx), timeout)
}

// Refusal returns the error that stops a plan before it runs: changes
// this version cannot apply, or destructive changes not confirmed.
func Refusal(plan schema.Plan, confirmDestructive bool) error {
	if bad := plan.Unsupported(); len(bad) > 0 {
		details := map[string]string{}
		for _, c := range bad {
			details[ChangePath(c)] = c.Unsupported
		}
		return apierr.Fields(apierr.CodeConflict, "Generate cannot apply some changes; nothing was changed", details)
	}
	if plan.Destructive && !confirmDestructive {
		details := map[string]string{}
		for _, c := range plan.Changes {
			if c.Destructive {
				details[ChangePath(c)] = c.Description
			}
		}
		e := apierr.Fields(apierr.CodeDestructive, "These changes would delete data; send confirm_destructive: true to apply them", details)
		e.Extra = map[string]any{"lost": plan.Lost()}
		return e
	}
	return nil
}

// MigrationError explains why a migration did not commit; the database
// and the published version are unchanged in every case.
func MigrationError(err error) error {
	if errors.Is(err, store.ErrStaleVersion) {
		return apierr.New(apierr.CodeConflict, "Another generate published a new version meanwhile; review the plan and generate again")
	}
	if errors.Is(err, store.ErrMoving) {
		return apierr.New(apierr.CodeConflict, "The project is moving to another database server; generate again once the move is done")
	}
	var ve *ViolationError
	if errors.As(err, &ve) {
		return Violations(ve.Violations)
	}
	var se *StatementError
	if !errors.As(err, &se) {
		return err
	}
	var pe *pq.Error
	if errors.As(err, &pe) {
		msg := pe.Message
		switch pe.Code {
		case "55P03":
			msg = "a table is busy (a lock was not granted within the lock timeout); try again"
		case "40P01":
			msg = "the migration met a deadlock with other work; try again"
		case "23502":
			msg = "existing rows have no value for a new required column; give it a default or make it optional"
		}
		e := apierr.New(apierr.CodeConflict, "Generate failed and changed nothing: %s", msg)
		e.Cause = err
		return e
	}
	e := apierr.New(apierr.CodeConflict, "Generate failed and changed nothing: %v", se.Err)
	e.Cause = err
	return e
}

// Violations is the 409 for rows that a plan could not keep: details per
// table.column, and info.violations with counts and example ids.
func Violations(vs []Violation) error {
	details := map[string]string{}
	for _, v := range vs {
		path := v.Table
		if v.Column != "" {
			path += "." + v.Column
		}
		if prev, ok := details[path]; ok {
			details[path] = prev + "; " + v.Message()
		} else {
			details[path] = v.Message()
		}
	}
	e := apierr.Fields(apierr.CodeConflict, "Existing rows do not fit the new schema, so generate changed nothing; fix those rows or the draft, then generate again", details)
	e.Extra = map[string]any{"violations": vs}
	return e
}

// ChangePath names where a change applies: table or table.column.
func ChangePath(c schema.Change) string {
	if c.Column != "" {
		return c.Table + "." + c.Column
	}
	return c.Table
}

// Describe renders a result as plain text lines, for the command line.
func Describe(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "published version %d\n", r.Version)
	for _, c := range r.Applied {
		fmt.Fprintf(&b, "  %s: %s\n", c.Kind, c.Description)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	for _, s := range r.Pending() {
		fmt.Fprintf(&b, "  left for the next generate: %s (%s)\n", s.Statement, s.Error)
	}
	if r.Indexes != nil {
		for _, ix := range r.Indexes.Items {
			fmt.Fprintf(&b, "  index %s on %s.%s: %s", ix.Name, ix.Table, ix.Column, ix.State)
			if ix.Error != "" {
				fmt.Fprintf(&b, " (%s)", ix.Error)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Apply saves a schema document (a schema.json file) as the project's
// draft and generates it: what the dashboard's upload followed by
// generate does, for scripts and CI. Unknown keys in the file are an
// error, as with the platform API. With dryRun it saves nothing and
// returns the plan the generate would run, with what the prechecks find.
func Apply(ctx context.Context, st *store.Store, projectID string, file []byte, dryRun bool, opt Options) (Result, *DryRun, error) {
	doc, err := schema.Parse(file)
	if err != nil {
		return Result{}, nil, apierr.New(apierr.CodeInvalidJSON, "The file is not a schema document: %v", err)
	}
	p, err := st.Project(ctx, projectID)
	if errors.Is(err, store.ErrNotFound) {
		return Result{}, nil, apierr.New(apierr.CodeNotFound, "Project %q not found", projectID)
	}
	if err != nil {
		return Result{}, nil, err
	}
	if err := managed(p); err != nil {
		return Result{}, nil, err
	}
	if dryRun {
		plan, err := Plan(ctx, st, p, doc, opt.Trigram)
		if err != nil {
			return Result{}, nil, err
		}
		v, err := CheckProjectRows(ctx, st, p.ID, plan.Prechecks)
		if err != nil {
			return Result{}, nil, err
		}
		return Result{}, &DryRun{Plan: plan, Violations: v}, nil
	}
	raw, _ := json.Marshal(doc)
	if err := st.PutDraft(ctx, p.ID, raw); err != nil {
		return Result{}, nil, err
	}
	res, err := Generate(ctx, st, p.ID, opt)
	if err != nil {
		return res, nil, err
	}
	// A script waits for the index builds: it runs them here, unless a
	// server's builder has already claimed them.
	if _, err := BuildProject(ctx, st, p.ID, store.BuildOptions{}); err != nil {
		return res, nil, err
	}
	if v, err := st.VersionByNumber(ctx, p.ID, res.Version); err == nil {
		res.Indexes = v.Indexes
	}
	return res, nil, nil
}

// DryRun is what Apply reports without applying.
type DryRun struct {
	Plan       schema.Plan `json:"plan"`
	Violations []Violation `json:"violations"`
}

// DescribeError renders a generate's refusal as plain text lines, with
// the details per table and column and what would be lost.
func DescribeError(err error) string {
	e := apierr.As(err)
	if e.Code == apierr.CodeInternal {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", e.Code, e.Message)
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %s\n", k, e.Details[k])
	}
	return b.String()
}

// Describe renders a dry run as plain text: each change with its flags
// and SQL, then the rows that would block it.
func (d DryRun) Describe() string {
	var b strings.Builder
	if len(d.Plan.Changes) == 0 {
		b.WriteString("no changes\n")
	}
	for _, c := range d.Plan.Changes {
		flags := ""
		if c.Destructive {
			flags += " [destructive]"
		}
		if c.RewritesTable {
			flags += " [rewrites table]"
		}
		if c.Unsupported != "" {
			flags += " [unsupported: " + c.Unsupported + "]"
		}
		fmt.Fprintf(&b, "%s: %s%s\n", c.Kind, c.Description, flags)
		for _, s := range c.Statements {
			fmt.Fprintf(&b, "    %s;\n", s)
		}
		for _, s := range c.After {
			fmt.Fprintf(&b, "    (after commit) %s;\n", s)
		}
	}
	for _, n := range d.Plan.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, v := range d.Violations {
		fmt.Fprintf(&b, "blocked: %s.%s: %s\n", v.Table, v.Column, v.Message())
	}
	return b.String()
}
