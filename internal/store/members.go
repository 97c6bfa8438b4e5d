package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/tablesmith/tablesmith/internal/events"
)

// Roles of a project member (docs/teams.md). The owner is the project's
// account_id, never a project_members row.
const (
	RoleOwner     = "owner"
	RoleAdmin     = "admin"
	RoleDeveloper = "developer"
	RoleViewer    = "viewer"
)

// Member is an account with a role in a project.
type Member struct {
	AccountID int64     `json:"account_id"`
	Email     string    `json:"email"`
	Name      string    `json:"name"`
	Role      string    `json:"role"`
	AddedAt   time.Time `json:"added_at"`
	InvitedBy *int64    `json:"invited_by"`
}

// MemberRole is the role of an account in a project: owner for its
// account_id, else its member row's; ErrNotFound for anyone else.
func (s *Store) MemberRole(ctx context.Context, p Project, accountID int64) (string, error) {
	if p.AccountID == accountID {
		return RoleOwner, nil
	}
	var role string
	err := s.DB.QueryRowContext(ctx, `SELECT role FROM tablesmith.project_members WHERE project_id = $1 AND account_id = $2`,
		p.ID, accountID).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	return role, err
}

// AccountRole is the role of a member (not the owner) in a project;
// ErrNotFound for an account that is not one.
func (s *Store) AccountRole(ctx context.Context, projectID string, accountID int64) (string, error) {
	return s.MemberRole(ctx, Project{ID: projectID}, accountID)
}

// Members lists a project's owner, then its members in the order they
// joined.
func (s *Store) Members(ctx context.Context, projectID string) ([]Member, error) {
	rows, err := s.DB.QueryContext(ctx, `
		SELECT a.id, a.email, a.name, 'owner', p.created_at, NULL::bigint, 0 AS o
		FROM tablesmith.projects p JOIN tablesmith.accounts a ON a.id = p.account_id WHERE p.id = $1
		UNION ALL
		SELECT a.id, a.email, a.name, m.role, m.added_at, m.invited_by, 1
		FROM tablesmith.project_members m JOIN tablesmith.accounts a ON a.id = m.account_id WHERE m.project_id = $1
		ORDER BY 7, 5, 1`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Member{}
	for rows.Next() {
		var m Member
		var order int
		if err := rows.Scan(&m.AccountID, &m.Email, &m.Name, &m.Role, &m.AddedAt, &m.InvitedBy, &order); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ProjectRole is a project with the role an account has in it.
type ProjectRole struct {
	Project
	Role string
}

// MemberProjects lists the projects an account owns or is a member of,
// oldest first.
func (s *Store) MemberProjects(ctx context.Context, accountID int64) ([]ProjectRole, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT `+projectCols+`, coalesce((SELECT m.role FROM tablesmith.project_members m
			WHERE m.project_id = projects.id AND m.account_id = $1), 'owner')
		FROM tablesmith.projects WHERE account_id = $1
			OR id IN (SELECT project_id FROM tablesmith.project_members WHERE account_id = $1)
		ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []ProjectRole{}
	for rows.Next() {
		var pr ProjectRole
		var role string
		p, err := scanProject(scanWith(rows, &role))
		if err != nil {
			return nil, err
		}
		pr.Project, pr.Role = p, role
		out = append(out, pr)
	}
	return out, rows.Err()
}

// scanWith scans the project's columns and then extra ones.
func scanWith(rows *sql.Rows, extra ...any) interface{ Scan(...any) error } {
	return scanFunc(func(dest ...any) error { return rows.Scan(append(dest, extra...)...) })
}

type scanFunc func(...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// SetMemberRole changes a member's role (not the owner's), with its audit
// entry.
func (s *Store) SetMemberRole(ctx context.Context, projectID string, accountID int64, role string, a AuditEntry) (Member, error) {
	return auditedTx(ctx, s, a, func(tx *sql.Tx) (Member, error) {
		res, err := tx.ExecContext(ctx, `UPDATE tablesmith.project_members SET role = $3 WHERE project_id = $1 AND account_id = $2`,
			projectID, accountID, role)
		if err != nil {
			return Member{}, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return Member{}, ErrNotFound
		}
		return memberTx(ctx, tx, projectID, accountID)
	}, targetMember)
}

// RemoveMember takes an account out of a project (not its owner), with
// its audit entry.
func (s *Store) RemoveMember(ctx context.Context, projectID string, accountID int64, a AuditEntry) (Member, error) {
	return auditedTx(ctx, s, a, func(tx *sql.Tx) (Member, error) {
		m, err := memberTx(ctx, tx, projectID, accountID)
		if err != nil {
			return m, err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM tablesmith.project_members WHERE project_id = $1 AND account_id = $2`, projectID, accountID)
		return m, err
	}, targetMember)
}

// targetMember names the member acted on as the audit entry's target.
func targetMember(m Member, a *AuditEntry) {
	if a.Target == "" {
		a.Target = m.Email
	}
}

func memberTx(ctx context.Context, tx *sql.Tx, projectID string, accountID int64) (Member, error) {
	var m Member
	err := tx.QueryRowContext(ctx, `SELECT a.id, a.email, a.name, m.role, m.added_at, m.invited_by
		FROM tablesmith.project_members m JOIN tablesmith.accounts a ON a.id = m.account_id
		WHERE m.project_id = $1 AND m.account_id = $2`, projectID, accountID).
		Scan(&m.AccountID, &m.Email, &m.Name, &m.Role, &m.AddedAt, &m.InvitedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return m, ErrNotFound
	}
	return m, err
}

// ErrNotMember is returned by TransferProject when the new owner is not a
// member of the project.
var ErrNotMember = errors.New("not a member of the project")

// TransferProject makes a member the project's owner and its owner an
// admin, in one transaction with the audit entry. The new owner's plan
// must allow one more project (maxProjects < 0: no limit): else ErrLimit.
// Every node's plans resolver forgets the old owner's projects, so rate
// limits and sessions on the generated API follow at once.
func (s *Store) TransferProject(ctx context.Context, projectID string, from, to int64, maxProjects int, a AuditEntry) error {
	_, err := auditedTx(ctx, s, a, func(tx *sql.Tx) (struct{}, error) {
		var none struct{}
		if _, err := memberTx(ctx, tx, projectID, to); errors.Is(err, ErrNotFound) {
			return none, ErrNotMember
		} else if err != nil {
			return none, err
		}
		if err := checkProjectLimit(ctx, tx, to, maxProjects); err != nil {
			return none, err
		}
		res, err := tx.ExecContext(ctx, `UPDATE tablesmith.projects SET account_id = $3, updated_at = now() WHERE id = $1 AND account_id = $2`,
			projectID, from, to)
		if err != nil {
			return none, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return none, ErrNotFound // transferred meanwhile
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tablesmith.project_members WHERE project_id = $1 AND account_id = $2`, projectID, to); err != nil {
			return none, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.project_members (project_id, account_id, role, invited_by)
			VALUES ($1, $2, 'admin', $3)`, projectID, from, to); err != nil {
			return none, err
		}
		if err := events.Notify(ctx, tx, events.PlanChanged{AccountID: from}); err != nil {
			return none, err
		}
		return none, events.Notify(ctx, tx, events.ProjectChanged{ProjectID: projectID})
	})
	return err
}

// Invitation is a pending invitation to a project; its token is only
// ever shown in the e-mail.
type Invitation struct {
	ID         string     `json:"id"`
	ProjectID  string     `json:"project_id"`
	Email      string     `json:"email"`
	Role       string     `json:"role"`
	InvitedBy  *int64     `json:"invited_by"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	AcceptedAt *time.Time `json:"-"`
	// Email of the account that invited, for the e-mail and the list.
	InviterEmail string `json:"inviter_email"`
}

const invitationCols = `i.id, i.project_id, i.email, i.role, i.invited_by, i.created_at, i.expires_at, i.accepted_at, coalesce(a.email, '')`

func scanInvitation(sc interface{ Scan(...any) error }) (Invitation, error) {
	var in Invitation
	err := sc.Scan(&in.ID, &in.ProjectID, &in.Email, &in.Role, &in.InvitedBy, &in.CreatedAt, &in.ExpiresAt, &in.AcceptedAt, &in.InviterEmail)
	if errors.Is(err, sql.ErrNoRows) {
		return in, ErrNotFound
	}
	return in, err
}

// IsMemberEmail reports whether the account with this e-mail owns or is a
// member of the project.
func (s *Store) IsMemberEmail(ctx context.Context, projectID, email string) (bool, error) {
	var ok bool
	err := s.DB.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM tablesmith.accounts a WHERE lower(a.email) = lower($2) AND (
		EXISTS (SELECT 1 FROM tablesmith.projects p WHERE p.id = $1 AND p.account_id = a.id) OR
		EXISTS (SELECT 1 FROM tablesmith.project_members m WHERE m.project_id = $1 AND m.account_id = a.id)))`,
		projectID, email).Scan(&ok)
	return ok, err
}

// CreateInvitation stores an invitation by its token's hash, with its
// audit entry. An earlier pending invitation of the same address to the
// project is replaced: its link stops working.
func (s *Store) CreateInvitation(ctx context.Context, in Invitation, tokenHash []byte, a AuditEntry) (Invitation, error) {
	return auditedTx(ctx, s, a, func(tx *sql.Tx) (Invitation, error) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM tablesmith.project_invitations
			WHERE project_id = $1 AND lower(email) = lower($2) AND accepted_at IS NULL`, in.ProjectID, in.Email); err != nil {
			return in, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.project_invitations
			(id, project_id, email, role, token_hash, invited_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			in.ID, in.ProjectID, in.Email, in.Role, tokenHash, in.InvitedBy, in.ExpiresAt); err != nil {
			return in, err
		}
		return scanInvitation(tx.QueryRowContext(ctx, `SELECT `+invitationCols+` FROM tablesmith.project_invitations i
			LEFT JOIN tablesmith.accounts a ON a.id = i.invited_by WHERE i.id = $1`, in.ID))
	})
}

// Invitations lists a project's invitations not yet accepted, expired
// ones included (the list shows them as such), newest first.
func (s *Store) Invitations(ctx context.Context, projectID string) ([]Invitation, error) {
	rows, err := s.DB.QueryContext(ctx, `SELECT `+invitationCols+` FROM tablesmith.project_invitations i
		LEFT JOIN tablesmith.accounts a ON a.id = i.invited_by
		WHERE i.project_id = $1 AND i.accepted_at IS NULL ORDER BY i.created_at DESC, i.id`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Invitation{}
	for rows.Next() {
		in, err := scanInvitation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, rows.Err()
}

// DeleteInvitation revokes a pending invitation, with its audit entry.
func (s *Store) DeleteInvitation(ctx context.Context, projectID, id string, a AuditEntry) (Invitation, error) {
	return auditedTx(ctx, s, a, func(tx *sql.Tx) (Invitation, error) {
		return scanInvitation(tx.QueryRowContext(ctx, `DELETE FROM tablesmith.project_invitations i
			WHERE i.project_id = $1 AND i.id = $2 AND i.accepted_at IS NULL
			RETURNING `+strings.Replace(invitationCols, "coalesce(a.email, '')", "''", 1), projectID, id))
	})
}

// Why an invitation cannot be accepted.
var (
	ErrInvitationUsed    = errors.New("the invitation was already used")
	ErrInvitationExpired = errors.New("the invitation expired")
	ErrInvitationEmail   = errors.New("the invitation is for another e-mail address")
	ErrAlreadyMember     = errors.New("already a member of the project")
)

// AcceptInvitation makes acc a member by the invitation whose token hashes
// to tokenHash: once, before it expires, and only for the address it was
// sent to (case-insensitively). The audit entry is written with it
// (its ProjectID and Target are filled in here).
func (s *Store) AcceptInvitation(ctx context.Context, tokenHash []byte, acc Account, now time.Time, a AuditEntry) (Invitation, error) {
	return auditedTx(ctx, s, a, func(tx *sql.Tx) (Invitation, error) {
		in, err := scanInvitation(tx.QueryRowContext(ctx, `SELECT `+invitationCols+` FROM tablesmith.project_invitations i
			LEFT JOIN tablesmith.accounts a ON a.id = i.invited_by WHERE i.token_hash = $1 FOR UPDATE OF i`, tokenHash))
		switch {
		case err != nil:
			return in, err
		case in.AcceptedAt != nil:
			return in, ErrInvitationUsed
		case !now.Before(in.ExpiresAt):
			return in, ErrInvitationExpired
		case !strings.EqualFold(in.Email, acc.Email):
			return in, ErrInvitationEmail
		}
		var owner int64
		if err := tx.QueryRowContext(ctx, `SELECT account_id FROM tablesmith.projects WHERE id = $1`, in.ProjectID).Scan(&owner); err != nil {
			return in, err
		}
		if owner == acc.ID {
			return in, ErrAlreadyMember
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO tablesmith.project_members (project_id, account_id, role, invited_by)
			VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, in.ProjectID, acc.ID, in.Role, in.InvitedBy)
		if err != nil {
			return in, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return in, ErrAlreadyMember
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tablesmith.project_invitations SET accepted_at = $2 WHERE id = $1`, in.ID, now); err != nil {
			return in, err
		}
		return in, nil
	}, func(in Invitation, a *AuditEntry) {
		a.ProjectID = in.ProjectID
		a.Details = map[string]any{"role": in.Role, "invitation_id": in.ID}
	})
}

// auditedTx runs f in a transaction and writes the audit entry a in it when f
// succeeds; fill may complete the entry from f's result first.
func auditedTx[T any](ctx context.Context, s *Store, a AuditEntry, f func(*sql.Tx) (T, error), fill ...func(T, *AuditEntry)) (T, error) {
	var zero T
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return zero, err
	}
	defer tx.Rollback()
	v, err := f(tx)
	if err != nil {
		return v, err
	}
	for _, fl := range fill {
		fl(v, &a)
	}
	if err := writeAudit(ctx, tx, a); err != nil {
		return v, err
	}
	return v, tx.Commit()
}
