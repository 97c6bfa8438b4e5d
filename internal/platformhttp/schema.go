package platformhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/jsonbody"
	"github.com/tablesmith/tablesmith/internal/publish"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// schemaMeta accompanies the draft document.
type schemaMeta struct {
	PublishedVersion      int               `json:"published_version"`
	UpdatedAt             any               `json:"updated_at"`
	HasUnpublishedChanges bool              `json:"has_unpublished_changes"`
	Valid                 bool              `json:"valid"`
	Problems              map[string]string `json:"problems,omitempty"`
}

// published returns the newest published document (empty before the first
// generate).
func (h *Handler) published(ctx context.Context, p store.Project) (schema.Document, error) {
	if p.PublishedVersion == 0 {
		return schema.Document{Tables: []schema.Table{}}, nil
	}
	v, err := h.d.Store.LatestVersion(ctx, p.ID)
	if err != nil {
		return schema.Document{}, err
	}
	return schema.Parse(v.Document)
}

func (h *Handler) draft(ctx context.Context, p store.Project) (schema.Document, any, error) {
	raw, at, err := h.d.Store.Draft(ctx, p.ID)
	if err != nil {
		return schema.Document{}, nil, err
	}
	doc, err := schema.Parse(raw)
	return doc, at, err
}

func (h *Handler) schemaMeta(ctx context.Context, p store.Project, doc schema.Document, at any) (schemaMeta, error) {
	m := schemaMeta{PublishedVersion: p.PublishedVersion, UpdatedAt: at}
	pub, err := h.published(ctx, p)
	if err != nil {
		return m, err
	}
	a, _ := json.Marshal(pub)
	b, _ := json.Marshal(doc)
	m.HasUnpublishedChanges = string(a) != string(b)
	if problems := schema.Validate(doc); len(problems) > 0 {
		m.Problems = problems
	} else {
		m.Valid = true
	}
	return m, nil
}

func (h *Handler) getSchema(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	doc, at, err := h.draft(r.Context(), p)
	if err != nil {
		return err
	}
	meta, err := h.schemaMeta(r.Context(), p, doc, at)
	if err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: doc, Meta: meta})
	return nil
}

// readDocument decodes a schema document body; a document that does not
// even have the right shape is a validation error naming the problem.
func (h *Handler) readDocument(w http.ResponseWriter, r *http.Request) (schema.Document, error) {
	var doc schema.Document
	if err := h.decode(w, r, &doc); err != nil {
		var e *apierr.Error
		if errors.As(err, &e) && e.Code == apierr.CodeInvalidJSON && e.Message == jsonbody.MsgNotObject {
			return doc, apierr.New(apierr.CodeInvalidJSON, "The body must be a schema document: {\"tables\": [...]}")
		}
		return doc, err
	}
	if doc.Tables == nil {
		doc.Tables = []schema.Table{}
	}
	return doc, nil
}

// putSchema saves the draft, valid or not: the builder saves work in
// progress; meta.valid and meta.problems say whether it can be generated.
// Only a draft over the schema limits (tables, columns, size) is refused.
func (h *Handler) putSchema(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	doc, err := h.readDocument(w, r)
	if err != nil {
		return err
	}
	if problems := schema.CheckLimits(doc); len(problems) > 0 {
		return apierr.Fields(apierr.CodeValidation, "The schema is over the limits of a project", problems)
	}
	return h.saveDraft(w, r, p, doc, "Draft saved", func() {
		h.audit(r.Context(), acc, p, "schema.saved", "", map[string]any{"tables": len(doc.Tables)})
	})
}

// saveDraft stores doc as the project's draft and answers with it and its
// meta (valid or not, unpublished changes).
func (h *Handler) saveDraft(w http.ResponseWriter, r *http.Request, p store.Project, doc schema.Document, message string, saved func()) error {
	raw, _ := json.Marshal(doc)
	if err := h.d.Store.PutDraft(r.Context(), p.ID, raw); err != nil {
		return err
	}
	saved() // the audit log's entry
	_, at, err := h.d.Store.Draft(r.Context(), p.ID)
	if err != nil {
		return err
	}
	meta, err := h.schemaMeta(r.Context(), p, doc, at)
	if err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: doc, Meta: meta, Message: message})
	return nil
}

func invalid(problems schema.Problems) error {
	return apierr.Fields(apierr.CodeValidation, "The schema is not valid", problems)
}

func (h *Handler) validateSchema(w http.ResponseWriter, r *http.Request, _ store.Account, _ store.Project) error {
	doc, err := h.readDocument(w, r)
	if err != nil {
		return err
	}
	if problems := schema.Validate(doc); len(problems) > 0 {
		return invalid(problems)
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: map[string]any{"valid": true}, Message: "The schema is valid"})
	return nil
}

// plan computes the change plan from the published document to the draft.
func (h *Handler) plan(ctx context.Context, p store.Project) (schema.Document, schema.Plan, error) {
	draft, _, err := h.draft(ctx, p)
	if err != nil {
		return draft, schema.Plan{}, err
	}
	if p.Engine == store.EngineExternal {
		_, plan, err := h.externalPlan(ctx, p, draft)
		return draft, plan, err
	}
	plan, err := publish.Plan(ctx, h.d.Store, p, draft, h.d.Trigram)
	return draft, plan, err
}

// planSchema shows what the next generate would do: every change with its
// SQL and flags. With ?check=true it also runs the prechecks (read-only)
// and lists the rows that would block the generate under violations.
func (h *Handler) planSchema(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	_, plan, err := h.plan(r.Context(), p)
	if err != nil {
		return err
	}
	if r.URL.Query().Get("check") != "true" {
		envelope.OK(w, plan)
		return nil
	}
	violations, err := h.checkRows(r.Context(), p, plan.Prechecks)
	if err != nil {
		return err
	}
	envelope.OK(w, struct {
		schema.Plan
		Violations []publish.Violation `json:"violations"`
	}{plan, violations})
	return nil
}

type endpoint struct {
	Method string `json:"method"`
	Path   string `json:"path"`
}

func (h *Handler) generate(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		ConfirmDestructive bool `json:"confirm_destructive"`
	}
	if r.ContentLength != 0 {
		if err := h.decode(w, r, &in); err != nil {
			return err
		}
	}
	if p.Engine == store.EngineExternal {
		return h.generateExternal(w, r, acc, p, in.ConfirmDestructive)
	}
	res, err := publish.Generate(r.Context(), h.d.Store, p.ID, publish.Options{ConfirmDestructive: in.ConfirmDestructive, Trigram: h.d.Trigram,
		Committed: func(int) { h.d.Registry.Invalidate(p.ID) }})
	if err != nil {
		return err
	}
	if h.d.BuildIndexes != nil {
		h.d.BuildIndexes()
	}
	h.audit(r.Context(), acc, p, "schema.generated", "", map[string]any{"version": res.Version, "changes": len(res.Applied)})
	for _, step := range res.Pending() {
		h.d.Logger.Warn("generate left work for later", "project", p.ID, "statement", step.Statement, "err", step.Error)
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Message: "API generated", Data: map[string]any{
		"version": res.Version, "endpoints": endpoints(p.ID, res.Document), "applied": res.Applied,
		"after_commit": res.AfterCommit, "notes": res.Notes, "indexes": res.Indexes}})
	return nil
}

// endpoints lists every operation the generated API serves for doc, as
// its OpenAPI document does (a test holds the two equal), table by table:
// per table the list, create, update and delete by filter, the bulk
// create, the export, the record's read, replace, update and delete, and
// the aggregate; the
// realtime stream when a table has realtime on; the end-user auth routes
// with an auth table; and the description itself.
func endpoints(projectID string, doc schema.Document) []endpoint {
	base := "/v1/" + projectID
	var out []endpoint
	add := func(method, path string) { out = append(out, endpoint{method, base + path}) }
	auth, realtime := false, false
	for _, t := range doc.Tables {
		collection := "/" + t.Name
		add("GET", collection)
		add("POST", collection)
		add("PATCH", collection)
		add("DELETE", collection)
		add("POST", collection+"/bulk")
		add("GET", collection+"/export")
		add("GET", collection+"/{id}")
		add("PUT", collection+"/{id}")
		add("PATCH", collection+"/{id}")
		add("DELETE", collection+"/{id}")
		add("GET", collection+"/aggregate")
		auth = auth || t.Auth
		realtime = realtime || t.Realtime
	}
	if auth {
		for _, p := range []string{"register", "login", "refresh", "logout"} {
			add("POST", "/auth/"+p)
		}
		add("GET", "/auth/me")
		// Mailed links (docs/end-user-auth.md).
		for _, p := range []string{"password-reset", "password-reset/confirm", "verify-email", "verify-email/resend", "email-change", "email-change/confirm"} {
			add("POST", "/auth/"+p)
		}
		// Sign in with providers (docs/end-user-auth.md).
		add("GET", "/auth/providers")
		add("GET", "/auth/providers/{name}/authorize")
		add("GET", "/auth/providers/{name}/callback")
		add("POST", "/auth/providers/exchange")
	}
	if realtime {
		add("GET", "/realtime")
	}
	add("GET", "/openapi.json")
	add("GET", "/docs")
	return out
}

func (h *Handler) listVersions(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	vs, err := h.d.Store.Versions(r.Context(), p.ID)
	if err != nil {
		return err
	}
	envelope.OK(w, vs)
	return nil
}
