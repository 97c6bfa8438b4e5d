package mail

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Outbox is the queue of messages in the control schema. Its Send renders
// a message and stores it; a Deliverer sends what it holds.
type Outbox struct {
	DB  *sql.DB
	Now func() time.Time
	// Scope tags the messages this outbox queues; only a Deliverer of the
	// same scope sends them. Deployments leave it empty; test servers,
	// which share a database but each have their own mail server, set
	// their own.
	Scope string
	wake  chan struct{}
}

// NewOutbox returns an outbox on the control database.
func NewOutbox(db *sql.DB, now func() time.Time) *Outbox {
	if now == nil {
		now = time.Now
	}
	return &Outbox{DB: db, Now: now, wake: make(chan struct{}, 1)}
}

// Send renders m with its project's template (or the default) and queues
// it. The rendered text is what is sent, so a template edited later does
// not change a message already queued.
func (o *Outbox) Send(ctx context.Context, m Message) error {
	tpl, ok := Defaults[m.Kind]
	if !ok {
		return fmt.Errorf("mail: unknown kind %q", m.Kind)
	}
	if m.To == "" || strings.ContainsAny(m.To, "\r\n") {
		return fmt.Errorf("mail: bad recipient %q", m.To)
	}
	data := maps.Clone(m.Data)
	if data == nil {
		data = map[string]string{}
	}
	if data["Email"] == "" {
		data["Email"] = m.To
	}
	var project *string
	if m.ProjectID != "" {
		project = &m.ProjectID
		name, custom, err := o.projectTemplate(ctx, m.ProjectID, m.Kind)
		if err != nil {
			return err
		}
		if data["ProjectName"] == "" {
			data["ProjectName"] = name
		}
		if custom != nil {
			tpl = *custom
		}
	}
	if data["ProjectName"] == "" {
		data["ProjectName"] = "Tablesmith"
	}
	r, err := tpl.Render(data)
	if err != nil {
		// A project's template was checked when saved; what fails now
		// (a value that makes it too long) falls back to the default
		// rather than losing the message.
		if r, err = Defaults[m.Kind].Render(data); err != nil {
			return fmt.Errorf("mail: render %s: %w", m.Kind, err)
		}
	}
	var account *int64
	if m.AccountID != 0 {
		account = &m.AccountID
	}
	now := o.Now()
	if _, err := o.DB.ExecContext(ctx, `INSERT INTO tablesmith.mail_outbox
		(project_id, account_id, kind, to_address, subject, text_body, html_body, next_attempt_at, created_at, scope)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9)`,
		project, account, string(m.Kind), m.To, r.Subject, r.Text, r.HTML, now, o.Scope); err != nil {
		return fmt.Errorf("mail: queue: %w", err)
	}
	select {
	case o.wake <- struct{}{}:
	default:
	}
	return nil
}

// projectTemplate reads a project's name and its own template of kind,
// if it has one and the kind is one a project may reword.
func (o *Outbox) projectTemplate(ctx context.Context, projectID string, kind Kind) (string, *Template, error) {
	var name string
	var subject, text, html sql.NullString
	err := o.DB.QueryRowContext(ctx, `SELECT p.name, t.subject, t.text_body, t.html_body
		FROM tablesmith.projects p
		LEFT JOIN tablesmith.mail_templates t ON t.project_id = p.id AND t.kind = $2 AND $3
		WHERE p.id = $1`, projectID, string(kind), slices.Contains(ProjectKinds, kind)).Scan(&name, &subject, &text, &html)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, fmt.Errorf("mail: project %q not found", projectID)
	}
	if err != nil || !subject.Valid {
		return name, nil, err
	}
	return name, &Template{Subject: subject.String, Text: text.String, HTML: html.String}, nil
}

// Entry is a queued or delivered message as the Outbox page shows it.
type Entry struct {
	ID        int64      `json:"id"`
	Kind      Kind       `json:"kind"`
	To        string     `json:"to"`
	Subject   string     `json:"subject"`
	Text      string     `json:"text"`
	HTML      string     `json:"html"`
	Status    string     `json:"status"`
	Attempts  int        `json:"attempts"`
	LastError string     `json:"last_error"`
	CreatedAt time.Time  `json:"created_at"`
	SentAt    *time.Time `json:"sent_at"`
}

// MaxListed bounds a page of the outbox as the platform API lists it.
const MaxListed = 100

// List returns a project's messages, newest first, those with an id below
// before (0: from the newest), at most limit of them (the caller bounds it:
// the platform API reads MaxListed plus one to know whether more remain).
func (o *Outbox) List(ctx context.Context, projectID string, before int64, limit int) ([]Entry, error) {
	rows, err := o.DB.QueryContext(ctx, `SELECT id, kind, to_address, subject, text_body, html_body, status,
		attempts, last_error, created_at, sent_at FROM tablesmith.mail_outbox
		WHERE project_id = $1 AND ($2 = 0 OR id < $2) ORDER BY id DESC LIMIT $3`, projectID, before, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		var e Entry
		if err := rows.Scan(&e.ID, &e.Kind, &e.To, &e.Subject, &e.Text, &e.HTML, &e.Status,
			&e.Attempts, &e.LastError, &e.CreatedAt, &e.SentAt); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ProjectTemplates returns the templates a project replaced.
func (o *Outbox) ProjectTemplates(ctx context.Context, projectID string) (map[Kind]Template, error) {
	rows, err := o.DB.QueryContext(ctx, `SELECT kind, subject, text_body, html_body
		FROM tablesmith.mail_templates WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[Kind]Template{}
	for rows.Next() {
		var k Kind
		var t Template
		if err := rows.Scan(&k, &t.Subject, &t.Text, &t.HTML); err != nil {
			return nil, err
		}
		out[k] = t
	}
	return out, rows.Err()
}

// SetProjectTemplate stores a project's template of kind (checked by the
// caller with Template.Check).
func (o *Outbox) SetProjectTemplate(ctx context.Context, projectID string, kind Kind, t Template) error {
	_, err := o.DB.ExecContext(ctx, `INSERT INTO tablesmith.mail_templates
		(project_id, kind, subject, text_body, html_body, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (project_id, kind) DO UPDATE SET subject = $3, text_body = $4, html_body = $5, updated_at = $6`,
		projectID, string(kind), t.Subject, t.Text, t.HTML, o.Now())
	return err
}

// ResetProjectTemplate returns kind to the default template.
func (o *Outbox) ResetProjectTemplate(ctx context.Context, projectID string, kind Kind) error {
	_, err := o.DB.ExecContext(ctx, `DELETE FROM tablesmith.mail_templates WHERE project_id = $1 AND kind = $2`, projectID, string(kind))
	return err
}
