package platformhttp

import (
	"encoding/json"
	"errors"
	"github.com/tablesmith/tablesmith/internal/analytics"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/cors"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/store"
)

// engine is a database engine a project can choose.
type engine struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Description string `json:"description"`
	Available   bool   `json:"available"`
	Recommended bool   `json:"recommended"`
	Reason      string `json:"reason"`
}

func (h *Handler) engineList() []engine {
	return []engine{
		{Name: store.EngineManaged, Label: "PostgreSQL, managed schema", Available: true, Recommended: true,
			Description: "Tablesmith creates and evolves the tables in a schema of their own in the service's PostgreSQL.",
			Reason:      "Recommended: nothing to set up, migrations without data loss, and the fastest API."},
		h.externalEngine(),
	}
}

// externalEngine describes postgres_external, available when the service
// wires it (Deps.External).
func (h *Handler) externalEngine() engine {
	e := engine{Name: store.EngineExternal, Label: "Existing PostgreSQL database", Available: h.d.External != nil,
		Description: "Front the tables of a PostgreSQL database you already run: Tablesmith reads its tables, columns, keys and foreign keys and serves them; generate changes only what you change in the builder.",
		Reason:      "For an application that already has its database; tables without a single integer or uuid key, and views, are listed but not served."}
	if !e.Available {
		e.Reason = "Not enabled on this server."
	}
	return e
}

func (h *Handler) engines(w http.ResponseWriter, r *http.Request) error {
	envelope.OK(w, h.engineList())
	return nil
}

// projectView is a project as the API shows it.
type projectView struct {
	store.Project
	// Role is the caller's role in the project (docs/teams.md).
	Role       string     `json:"role"`
	APIBaseURL string     `json:"api_base_url"`
	DocsURL    string     `json:"docs_url"`
	Usage      *usageView `json:"usage,omitempty"`
	// Files is what the project's stored files hold against its plan's
	// file storage (docs/files.md).
	Files *analytics.FileStorage `json:"files,omitempty"`
	// Connection and Introspection describe the database a
	// postgres_external project fronts (external.go).
	Connection    *connectionView    `json:"connection,omitempty"`
	Introspection *introspectionView `json:"introspection,omitempty"`
}

type usageView struct {
	Used     int64     `json:"used"`
	Limit    int64     `json:"limit"`
	ResetsAt time.Time `json:"resets_at"`
}

func (h *Handler) projectView(r *http.Request, acc store.Account, p store.Project) projectView {
	base := baseURL(r) + "/v1/" + p.ID
	v := projectView{Project: p, Role: roleOf(r.Context()), APIBaseURL: base, DocsURL: base + "/docs"}
	if v.Role == "" && p.AccountID == acc.ID {
		v.Role = store.RoleOwner // just created
	}
	// The limits are the owner's plan's, whoever asks.
	plan, _, err := h.projectPlan(r.Context(), acc, p)
	if err == nil && h.d.Usage != nil {
		used, resets := h.d.Usage(r.Context(), p.ID)
		v.Usage = &usageView{Used: used, Limit: plan.RatePerHour, ResetsAt: resets}
	}
	if err == nil && h.d.FileUsage != nil {
		if used, err := h.d.FileUsage(r.Context(), p.ID); err == nil {
			v.Files = &analytics.FileStorage{UsedBytes: used, LimitBytes: plan.FileStorage}
		}
	}
	if p.Engine == store.EngineExternal {
		h.describeExternal(r.Context(), &v, p)
	}
	return v
}

type projectInput struct {
	Name       string          `json:"name"`
	Engine     string          `json:"engine"`
	Connection json.RawMessage `json:"connection"`
}

func validProjectName(name string) (string, string) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", "is required"
	}
	if utf8.RuneCountInString(name) > 100 {
		return "", "must be at most 100 characters"
	}
	return name, ""
}

func (h *Handler) createProject(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	var in projectInput
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	problems := map[string]string{}
	name, msg := validProjectName(in.Name)
	if msg != "" {
		problems["name"] = msg
	}
	if in.Engine == "" {
		in.Engine = store.EngineManaged
	}
	var chosen *engine
	for _, e := range h.engineList() {
		if e.Name == in.Engine {
			chosen = &e
		}
	}
	switch {
	case chosen == nil:
		problems["engine"] = "unknown engine (see GET /api/engines)"
	case !chosen.Available:
		problems["engine"] = chosen.Reason
	}
	if in.Engine == store.EngineManaged && len(in.Connection) > 0 && string(in.Connection) != "null" {
		problems["connection"] = "the managed engine takes no connection"
	}
	var conn connectionInput
	if in.Engine == store.EngineExternal && chosen != nil && chosen.Available {
		conn = parseConnection(in.Connection, problems)
	}
	if len(problems) > 0 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	if in.Engine == store.EngineExternal {
		return h.createExternal(w, r, acc, name, conn)
	}
	cfg := h.d.Config()
	plan := cfg.Plans.Get(acc.Plan, cfg.DefaultPlan)
	server := ""
	if h.d.PlaceProject != nil {
		var err error
		if server, err = h.d.PlaceProject(r.Context()); err != nil {
			return err
		}
	}
	p, err := h.d.Store.CreateProject(r.Context(), acc.ID, name, in.Engine, nil, nil, plan.Projects, server)
	if errors.Is(err, store.ErrLimit) {
		return planLimitError(acc.Plan, plan.Projects)
	}
	if err != nil {
		return err
	}
	h.audit(r.Context(), acc, p, "project.created", "", map[string]any{"name": p.Name, "engine": p.Engine})
	w.Header().Set("Location", "/api/projects/"+p.ID)
	created(w, h.projectView(r, acc, p))
	return nil
}

// listProjects lists the projects the account owns or is a member of,
// each with the caller's role.
func (h *Handler) listProjects(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	ps, err := h.d.Store.MemberProjects(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	out := make([]projectView, len(ps))
	for i, p := range ps {
		out[i] = h.projectView(r.WithContext(withRole(r.Context(), p.Role)), acc, p.Project)
	}
	envelope.OK(w, out)
	return nil
}

func (h *Handler) getProject(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	envelope.OK(w, h.projectView(r, acc, p))
	return nil
}

// updateProject changes what PATCH /api/projects/{id} names: the name,
// the CORS setting (cors.allowed_origins), and a fronted project's
// connection. Everything is checked before anything is stored.
func (h *Handler) updateProject(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		Name *string `json:"name"`
		// Connection replaces a fronted project's connection (external.go).
		Connection json.RawMessage `json:"connection"`
		CORS       *struct {
			AllowedOrigins *[]string `json:"allowed_origins"`
		} `json:"cors"`
	}
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	hasConnection := len(in.Connection) > 0 && string(in.Connection) != "null"
	if in.Name == nil && in.CORS == nil && !hasConnection {
		return apierr.Fields(apierr.CodeValidation, "Validation failed: give name, cors or connection",
			map[string]string{"name": "is required (or give cors or connection)"})
	}
	problems := map[string]string{}
	var name string
	if in.Name != nil {
		var msg string
		if name, msg = validProjectName(*in.Name); msg != "" {
			problems["name"] = msg
		}
	}
	var origins []string
	if in.CORS != nil {
		if in.CORS.AllowedOrigins == nil {
			problems["cors.allowed_origins"] = `is required: a list of origins such as ["https://app.example.com"], or ["*"] for any origin`
		} else {
			var bad map[string]string
			if origins, bad = cors.Normalize(*in.CORS.AllowedOrigins); bad != nil {
				for k, msg := range bad {
					problems["cors.allowed_origins"+k] = msg
				}
			}
		}
	}
	if len(problems) > 0 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	// The connection decides which database the API serves: admin's.
	if hasConnection {
		if err := require(r.Context(), store.RoleAdmin); err != nil {
			return err
		}
	}
	changed := map[string]any{}
	if hasConnection {
		if err := h.updateConnection(w, r, p, in.Connection); err != nil {
			return err
		}
		changed["connection"] = "replaced" // never its URL: it holds a password
	}
	var err error
	if in.Name != nil {
		if p, err = h.d.Store.RenameProject(r.Context(), p.ID, name); err != nil {
			return err
		}
		changed["name"] = name
	}
	if in.CORS != nil {
		if len(origins) == 0 || (len(origins) == 1 && origins[0] == cors.Any) {
			origins = nil // the default, stored as no setting
		}
		if p, err = h.d.Store.SetProjectCORS(r.Context(), p.ID, origins); err != nil {
			return err
		}
		h.d.Registry.Invalidate(p.ID) // this node at once; others by the event
		changed["cors.allowed_origins"] = p.CORS.AllowedOrigins
	}
	h.audit(r.Context(), acc, p, "project.updated", "", changed)
	if p, err = h.d.Store.Project(r.Context(), p.ID); err != nil {
		return err
	}
	envelope.OK(w, h.projectView(r, acc, p))
	return nil
}

func (h *Handler) deleteProject(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	if err := h.d.Store.DeleteProject(r.Context(), p.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	h.d.Registry.Invalidate(p.ID)
	envelope.Write(w, http.StatusOK, envelope.Success{Data: h.projectView(r, acc, p), Message: "Project deleted"})
	return nil
}

// planLimitError is the answer to a project the account's plan does not
// allow, whether it is created managed or fronting a database.
func planLimitError(plan string, projects int) error {
	return apierr.New(apierr.CodePlanLimit, "The %s plan allows %s; delete one or upgrade the plan", plan, countOf(projects, "project"))
}

// countOf is "1 project", "2 projects": a message says the number in words
// that agree with it, never "project(s)".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
