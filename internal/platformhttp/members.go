package platformhttp

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/tablesmith/tablesmith/apierr"
	"github.com/tablesmith/tablesmith/internal/envelope"
	"github.com/tablesmith/tablesmith/internal/mail"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/schema"
)

// InvitationTTL is how long an invitation link works.
const InvitationTTL = 7 * 24 * time.Hour

func (h *Handler) listMembers(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	ms, err := h.d.Store.Members(r.Context(), p.ID)
	if err != nil {
		return err
	}
	envelope.OK(w, ms)
	return nil
}

// roleProblem says why role cannot be given to a member, or "".
func roleProblem(role string) string {
	switch {
	case role == store.RoleOwner:
		return "owner is given only by a transfer (POST /api/projects/{id}/transfer)"
	case !validRole(role):
		return "must be admin, developer or viewer"
	}
	return ""
}

// inviteMember mails an invitation link to an address (docs/teams.md,
// "Invitations"). Inviting an address again replaces its pending
// invitation: the earlier link stops working.
func (h *Handler) inviteMember(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		Email string `json:"email"`
		Role  string `json:"role"`
	}
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	problems := map[string]string{}
	emailCol := schema.Column{Name: "email", Type: schema.TypeEmail, Required: true}
	email, msg := schema.CheckValue(&emailCol, in.Email)
	if msg != "" {
		problems["email"] = msg
	}
	if msg := roleProblem(in.Role); msg != "" {
		problems["role"] = msg
	}
	if len(problems) > 0 {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", problems)
	}
	address := email.(string)
	ctx := r.Context()
	member, err := h.d.Store.IsMemberEmail(ctx, p.ID, address)
	if err != nil {
		return err
	}
	if member {
		return apierr.Fields(apierr.CodeConflict, "This address is already a member of the project", map[string]string{"email": "is already a member"})
	}
	if h.d.Mail == nil {
		return apierr.New(apierr.CodeUnavailable, "This server sends no e-mail, so it cannot invite")
	}
	token, hash := newInvitationToken()
	inviter := acc.ID
	inv, err := h.d.Store.CreateInvitation(ctx, store.Invitation{ID: "inv_" + store.RandomID(16), ProjectID: p.ID, Email: address,
		Role: in.Role, InvitedBy: &inviter, ExpiresAt: h.d.Now().Add(InvitationTTL).UTC()}, hash,
		h.auditEntry(acc, p, "member.invited", address, map[string]any{"role": in.Role}))
	if err != nil {
		return err
	}
	// Queued in the outbox (mail.Sender): delivery is off the request path.
	err = h.d.Mail.Send(ctx, mail.Message{ProjectID: p.ID, AccountID: acc.ID, Kind: mail.KindInvite, To: address,
		Data: map[string]string{"Link": baseURL(r) + "/invites/" + token, "Inviter": inviterName(acc), "Role": in.Role,
			"ProjectName": p.Name, "ExpiresIn": "7 days"}})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/projects/"+p.ID+"/invitations")
	envelope.Write(w, http.StatusCreated, envelope.Success{Data: inv, Message: "Invitation sent to " + address})
	return nil
}

// newInvitationToken is 256 random bits, as the link carries them, and
// the SHA-256 that is stored.
func newInvitationToken() (string, []byte) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(token))
	return token, sum[:]
}

func inviterName(acc store.Account) string {
	if acc.Name != "" {
		return acc.Name + " (" + acc.Email + ")"
	}
	return acc.Email
}

func (h *Handler) listInvitations(w http.ResponseWriter, r *http.Request, _ store.Account, p store.Project) error {
	ins, err := h.d.Store.Invitations(r.Context(), p.ID)
	if err != nil {
		return err
	}
	envelope.OK(w, ins)
	return nil
}

func (h *Handler) deleteInvitation(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	iid := r.PathValue("iid")
	inv, err := h.d.Store.DeleteInvitation(r.Context(), p.ID, iid, h.auditEntry(acc, p, "member.invitation_revoked", "", map[string]any{"invitation_id": iid}))
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.CodeNotFound, "Invitation %q not found (or already accepted)", iid)
	}
	if err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: map[string]any{"id": inv.ID, "email": inv.Email, "deleted": true},
		Message: "Invitation revoked: its link no longer works"})
	return nil
}

// acceptInvite makes the signed-in account a member by an invitation's
// token: once, before it expires, and only if the account's e-mail is the
// one the invitation was sent to.
func (h *Handler) acceptInvite(w http.ResponseWriter, r *http.Request, acc store.Account) error {
	var in struct {
		Token string `json:"token"`
	}
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	if in.Token == "" {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"token": "is required"})
	}
	sum := sha256.Sum256([]byte(in.Token))
	self := acc.ID
	inv, err := h.d.Store.AcceptInvitation(r.Context(), sum[:], acc, h.d.Now(),
		store.AuditEntry{ActorID: &self, ActorEmail: acc.Email, Action: "member.joined", Target: acc.Email})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return apierr.New(apierr.CodeNotFound, "This invitation link is not valid: it was revoked, replaced by a newer one, or mistyped")
	case errors.Is(err, store.ErrInvitationUsed):
		return apierr.New(apierr.CodeConflict, "This invitation was already accepted; each link works once")
	case errors.Is(err, store.ErrInvitationExpired):
		return apierr.New(apierr.CodeConflict, "This invitation expired on %s; ask the project's admin for a new one", inv.ExpiresAt.UTC().Format("2 Jan 2006"))
	case errors.Is(err, store.ErrInvitationEmail):
		return apierr.New(apierr.CodeForbidden, "This invitation was sent to another e-mail address; sign in with the account of that address (you are signed in as %s)", acc.Email)
	case errors.Is(err, store.ErrAlreadyMember):
		return apierr.New(apierr.CodeConflict, "You are already a member of this project")
	case err != nil:
		return err
	}
	p, err := h.d.Store.Project(r.Context(), inv.ProjectID)
	if err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: h.projectView(r.WithContext(withRole(r.Context(), inv.Role)), acc, p),
		Message: "You joined " + p.Name + " as " + inv.Role})
	return nil
}

// memberInPath is the account id the path names, and whether it is the
// project's owner.
func memberInPath(r *http.Request, p store.Project) (int64, bool, error) {
	id, err := strconv.ParseInt(r.PathValue("account_id"), 10, 64)
	if err != nil {
		return 0, false, apierr.New(apierr.CodeNotFound, "Member %q not found", r.PathValue("account_id"))
	}
	return id, id == p.AccountID, nil
}

// updateMember changes a member's role. The owner's role changes only by
// a transfer, and nobody is made owner this way.
func (h *Handler) updateMember(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		Role string `json:"role"`
	}
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	if msg := roleProblem(in.Role); msg != "" {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"role": msg})
	}
	target, isOwner, err := memberInPath(r, p)
	if err != nil {
		return err
	}
	if isOwner {
		return apierr.New(apierr.CodeForbidden, "The owner's role changes only by transferring the project (POST /api/projects/%s/transfer)", p.ID)
	}
	m, err := h.d.Store.SetMemberRole(r.Context(), p.ID, target, in.Role,
		h.auditEntry(acc, p, "member.role_changed", "", map[string]any{"account_id": target, "role": in.Role}))
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.CodeNotFound, "Member %d not found in this project", target)
	}
	if err != nil {
		return err
	}
	envelope.OK(w, m)
	return nil
}

// removeMember takes a member out of the project: an admin removes
// anyone but the owner; any member removes themselves (leaves).
func (h *Handler) removeMember(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	target, isOwner, err := memberInPath(r, p)
	if err != nil {
		return err
	}
	self := target == acc.ID
	if !self {
		if err := require(r.Context(), store.RoleAdmin); err != nil {
			return err
		}
	}
	if isOwner {
		return apierr.New(apierr.CodeForbidden, "The owner cannot leave or be removed; transfer the project to another member first")
	}
	details := map[string]any{"account_id": target}
	if self {
		details["left"] = true
	}
	m, err := h.d.Store.RemoveMember(r.Context(), p.ID, target, h.auditEntry(acc, p, "member.removed", "", details))
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.CodeNotFound, "Member %d not found in this project", target)
	}
	if err != nil {
		return err
	}
	msg := m.Email + " was removed from the project"
	if self {
		msg = "You left the project"
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: map[string]any{"account_id": m.AccountID, "email": m.Email, "removed": true}, Message: msg})
	return nil
}

// transferProject makes a member the owner; the old owner stays as an
// admin. The project then counts against the new owner's plan, which
// must allow one more.
func (h *Handler) transferProject(w http.ResponseWriter, r *http.Request, acc store.Account, p store.Project) error {
	var in struct {
		AccountID *int64 `json:"account_id"`
	}
	if err := h.decode(w, r, &in); err != nil {
		return err
	}
	if in.AccountID == nil {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"account_id": "is required: the member who becomes the owner"})
	}
	to := *in.AccountID
	if to == p.AccountID {
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"account_id": "is the owner already"})
	}
	ctx := r.Context()
	target, err := h.d.Store.AccountByID(ctx, to)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	cfg := h.d.Config()
	plan := cfg.Plans.Get(target.Plan, cfg.DefaultPlan)
	err = h.d.Store.TransferProject(ctx, p.ID, p.AccountID, to, plan.Projects,
		h.auditEntry(acc, p, "ownership.transferred", target.Email, map[string]any{"from": acc.Email, "from_account_id": acc.ID, "to_account_id": to}))
	switch {
	case errors.Is(err, store.ErrNotMember):
		return apierr.Fields(apierr.CodeValidation, "Validation failed", map[string]string{"account_id": "is not a member of this project; invite them first"})
	case errors.Is(err, store.ErrLimit):
		return apierr.New(apierr.CodePlanLimit, "The %s plan of %s allows %s; they must delete one or upgrade before taking this one",
			target.Plan, target.Email, countOf(plan.Projects, "project"))
	case err != nil:
		return err
	}
	if p, err = h.d.Store.Project(ctx, p.ID); err != nil {
		return err
	}
	envelope.Write(w, http.StatusOK, envelope.Success{Data: h.projectView(r.WithContext(withRole(ctx, store.RoleAdmin)), acc, p),
		Message: "The project now belongs to " + target.Email + "; you stay as an admin"})
	return nil
}
