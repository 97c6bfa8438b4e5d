package platformhttp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/internal/testsmtp"
)

// team is a project with an owner, on a server whose e-mail goes to a real
// SMTP server in the test, and a clock the test moves.
type team struct {
	t     *testing.T
	s     *testserver.Server
	mail  *testsmtp.Server
	clock *atomic.Int64 // nanoseconds added to the real time
	owner string        // the owner's session
	id    string        // the project
}

// newTeam starts the test's server. The tests that use it are not
// parallel: every server of the package shares one database, hence one
// outbox, and another server's deliverer would send this one's invitations
// to its own SMTP server (or its log).
func newTeam(t *testing.T) *team {
	t.Helper()
	tm := &team{t: t, mail: testsmtp.Start(t), clock: new(atomic.Int64)}
	tm.s = testserver.New(t, testserver.WithSMTP(tm.mail),
		testserver.WithNow(func() time.Time { return time.Now().Add(time.Duration(tm.clock.Load())) }))
	tm.owner = tm.s.Signup("owner-" + store.RandomID(6) + "@example.com")
	tm.id = tm.s.Do("POST", "/api/projects", tm.owner, map[string]any{"name": "Team project"}).Must(t, 201).Data()["id"].(string)
	tm.s.Publish(tm.owner, tm.id, `{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	return tm
}

func (tm *team) path(rest string) string { return "/api/projects/" + tm.id + rest }

// invite has session invite address as role and returns the token of
// the link the e-mail carries.
func (tm *team) invite(session, address, role string) string {
	tm.t.Helper()
	tm.s.Do("POST", tm.path("/members"), session, map[string]any{"email": address, "role": role}).Must(tm.t, 201)
	return inviteToken(tm.t, tm.mail.WaitSubject(tm.t, strings.ToLower(address), "invited you"))
}

// inviteToken reads the token from the invitation link of a message.
func inviteToken(t *testing.T, m testsmtp.Message) string {
	t.Helper()
	for _, link := range m.Links {
		if i := strings.Index(link, "/invites/"); i >= 0 {
			return link[i+len("/invites/"):]
		}
	}
	t.Fatalf("no invitation link in %q: %v", m.Subject, m.Links)
	return ""
}

// join signs a new account up, has the owner invite it as role and
// accepts: its session and account id.
func (tm *team) join(role string) (string, int64) {
	tm.t.Helper()
	address := role + "-" + store.RandomID(6) + "@example.com"
	session := tm.s.Signup(address)
	token := tm.invite(tm.owner, address, role)
	joined := tm.s.Do("POST", "/api/invites/accept", session, map[string]any{"token": token}).Must(tm.t, 200).Data()
	if joined["id"] != tm.id || joined["role"] != role {
		tm.t.Fatalf("accepted = %v", joined)
	}
	me := tm.s.Do("GET", "/api/account", session, nil).Must(tm.t, 200).Data()
	return session, int64(me["id"].(float64))
}

// Each role against a route of each kind: what it may do answers, what it
// may not is 403 FORBIDDEN naming the role needed, and an account that is
// no member finds no project at all.
func TestEachRoleReachesWhatItsRoleAllows(t *testing.T) {
	tm := newTeam(t)
	admin, _ := tm.join("admin")
	developer, _ := tm.join("developer")
	viewer, _ := tm.join("viewer")
	stranger := tm.s.Signup("stranger-" + store.RandomID(6) + "@example.com")
	schemaDoc := `{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}, {"name": "n", "type": "integer"}]}]}`

	type call struct {
		method, path string
		body         any
		least        string // the least role that may
	}
	calls := []call{
		{"GET", "", nil, "viewer"},
		{"GET", "/schema", nil, "viewer"},
		{"GET", "/schema/versions", nil, "viewer"},
		{"GET", "/keys", nil, "viewer"},
		{"GET", "/analytics?range=24h", nil, "viewer"},
		{"GET", "/webhooks", nil, "viewer"},
		{"GET", "/members", nil, "viewer"},
		{"PUT", "/schema", schemaDoc, "developer"},
		{"POST", "/generate", map[string]any{}, "developer"},
		{"POST", "/keys", map[string]any{"name": "ci"}, "developer"},
		{"PATCH", "", map[string]any{"name": "Renamed"}, "developer"},
		{"GET", "/invitations", nil, "admin"},
		{"GET", "/audit", nil, "admin"},
		{"POST", "/transfer", map[string]any{"account_id": 0}, "owner"},
	}
	sessions := map[string]string{"owner": tm.owner, "admin": admin, "developer": developer, "viewer": viewer}
	rank := map[string]int{"viewer": 1, "developer": 2, "admin": 3, "owner": 4}
	for _, c := range calls {
		for role, session := range sessions {
			res := tm.s.Do(c.method, tm.path(c.path), session, c.body)
			allowed := rank[role] >= rank[c.least]
			switch {
			case allowed && res.Status >= 400 && !(c.path == "/transfer" && res.Status == 400):
				t.Errorf("%s %s as %s = %d, want success: %s", c.method, c.path, role, res.Status, res.Raw)
			case !allowed && (res.Status != 403 || res.ErrorCode() != "FORBIDDEN" ||
				!strings.Contains(res.Message(), "needs the "+c.least+" role") || !strings.Contains(res.Message(), "you are a"+map[bool]string{true: "n", false: ""}[role == "admin"]+" "+role)):
				t.Errorf("%s %s as %s = %d, want 403 FORBIDDEN naming %s: %s", c.method, c.path, role, res.Status, c.least, res.Raw)
			}
		}
		if res := tm.s.Do(c.method, tm.path(c.path), stranger, c.body); res.Status != 404 || res.ErrorCode() != "NOT_FOUND" {
			t.Errorf("%s %s as a non-member = %d, want 404: %s", c.method, c.path, res.Status, res.Raw)
		}
	}
	// Each lists the project with its own role; the stranger does not.
	for role, session := range sessions {
		list := tm.s.Do("GET", "/api/projects", session, nil).Must(t, 200).List()
		if len(list) != 1 || list[0]["id"] != tm.id || list[0]["role"] != role {
			t.Errorf("projects of the %s = %v", role, list)
		}
	}
	if list := tm.s.Do("GET", "/api/projects", stranger, nil).Must(t, 200).List(); len(list) != 0 {
		t.Errorf("the stranger lists %v", list)
	}
	// Only the owner deletes.
	tm.s.Do("DELETE", tm.path(""), admin, nil).Must(t, 403)
	tm.s.Do("DELETE", tm.path(""), tm.owner, nil).Must(t, 200)
	tm.s.Do("GET", tm.path(""), admin, nil).Must(t, 404)
}

// The member's view of a project carries the owner's plan: its limits
// are the owner's, not the member's.
func TestAMemberSeesTheOwnersPlanLimits(t *testing.T) {
	tm := newTeam(t)
	viewer, _ := tm.join("viewer")
	var viewerEmail string
	me := tm.s.Do("GET", "/api/account", viewer, nil).Must(t, 200).Data()
	viewerEmail = me["email"].(string)
	if err := tm.s.Svc.Store.SetPlan(context.Background(), viewerEmail, "free"); err != nil {
		t.Fatal(err)
	}
	p := tm.s.Do("GET", tm.path(""), viewer, nil).Must(t, 200).Data()
	if usage, _ := p["usage"].(map[string]any); usage == nil || usage["limit"] != float64(-1) {
		t.Fatalf("usage seen by a free member of an unlimited owner's project = %v", p["usage"])
	}
	// A member's projects are not counted against the member's plan: the
	// free member still creates its own.
	tm.s.Do("POST", "/api/projects", viewer, map[string]any{"name": "Mine"}).Must(t, 201)
}

// The invitation: mailed with its link, bound to the address invited,
// once, for 7 days; inviting again replaces the link, and revoking kills it.
func TestInvitationsAreBoundToTheirAddressSingleUseAndExpire(t *testing.T) {
	tm := newTeam(t)
	s := tm.s

	// The e-mail carries the link, the inviter, the role and the project.
	res := s.Do("POST", tm.path("/members"), tm.owner, map[string]any{"email": "Kim@Example.com", "role": "developer"}).Must(t, 201).Data()
	if res["email"] != "kim@example.com" || res["role"] != "developer" || res["expires_at"] == nil || res["id"] == nil {
		t.Fatalf("invitation = %v", res)
	}
	expires, _ := time.Parse(time.RFC3339Nano, res["expires_at"].(string))
	if d := time.Until(expires); d < 7*24*time.Hour-time.Minute || d > 7*24*time.Hour+time.Minute {
		t.Errorf("expires in %s, want 7 days", d)
	}
	m := tm.mail.WaitSubject(t, "kim@example.com", "invited you")
	token := inviteToken(t, m)
	if len(token) < 43 || !strings.Contains(m.Text, "Team project") || !strings.Contains(m.Text, "developer") || !strings.Contains(m.Text, "owner-") {
		t.Errorf("invitation e-mail %q: %s (token %q)", m.Subject, m.Text, token)
	}
	if !strings.HasPrefix(m.Links[0], s.URL+"/invites/") && !strings.Contains(strings.Join(m.Links, " "), s.URL+"/invites/") {
		t.Errorf("links = %v, want %s/invites/<token>", m.Links, s.URL)
	}
	// Only its hash is stored.
	var stored int
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM tablesmith.project_invitations WHERE token_hash = convert_to($1, 'UTF8') OR id = $1`, token).Scan(&stored); err != nil || stored != 0 {
		t.Errorf("the token is stored as it is (%d, %v)", stored, err)
	}
	listed := s.Do("GET", tm.path("/invitations"), tm.owner, nil).Must(t, 200).List()
	if len(listed) != 1 || listed[0]["email"] != "kim@example.com" || strings.Contains(fmt.Sprint(listed), token) {
		t.Errorf("invitations = %v", listed)
	}

	// Another address's account cannot use it.
	other := s.Signup("other@example.com")
	wrong := s.Do("POST", "/api/invites/accept", other, map[string]any{"token": token}).Must(t, 403)
	if wrong.ErrorCode() != "FORBIDDEN" || !strings.Contains(wrong.Message(), "another e-mail address") {
		t.Errorf("wrong address = %s", wrong.Raw)
	}
	s.Do("POST", "/api/invites/accept", "", map[string]any{"token": token}).Must(t, 401)
	s.Do("POST", "/api/invites/accept", other, map[string]any{"token": token, "extra": 1}).Must(t, 400)
	s.Do("POST", "/api/invites/accept", other, map[string]any{"token": "nope"}).Must(t, 404)

	// Its address, in any case, joins once.
	kim := s.Signup("KIM@example.com")
	s.Do("POST", "/api/invites/accept", kim, map[string]any{"token": token}).Must(t, 200)
	again := s.Do("POST", "/api/invites/accept", kim, map[string]any{"token": token}).Must(t, 409)
	if !strings.Contains(again.Message(), "already accepted") {
		t.Errorf("reused = %s", again.Raw)
	}
	if l := s.Do("GET", tm.path("/invitations"), tm.owner, nil).Must(t, 200).List(); len(l) != 0 {
		t.Errorf("accepted invitation still listed: %v", l)
	}
	// A member is not invited again.
	dup := s.Do("POST", tm.path("/members"), tm.owner, map[string]any{"email": "kim@EXAMPLE.com", "role": "viewer"}).Must(t, 409)
	if dup.Details()["email"] == nil {
		t.Errorf("inviting a member = %s", dup.Raw)
	}
	owner := s.Do("GET", "/api/account", tm.owner, nil).Must(t, 200).Data()["email"].(string)
	s.Do("POST", tm.path("/members"), tm.owner, map[string]any{"email": owner, "role": "viewer"}).Must(t, 409)
	// Nobody is invited as owner, nor with a role that does not exist.
	bad := s.Do("POST", tm.path("/members"), tm.owner, map[string]any{"email": "x@example.com", "role": "owner"}).Must(t, 400)
	if !strings.Contains(fmt.Sprint(bad.Details()["role"]), "transfer") {
		t.Errorf("owner role = %s", bad.Raw)
	}
	s.Do("POST", tm.path("/members"), tm.owner, map[string]any{"email": "not an address", "role": "root"}).Must(t, 400)

	// Inviting again replaces the link; revoking kills it.
	first := tm.invite(tm.owner, "lee@example.com", "viewer")
	second := tm.invite(tm.owner, "lee@example.com", "developer")
	lee := s.Signup("lee@example.com")
	s.Do("POST", "/api/invites/accept", lee, map[string]any{"token": first}).Must(t, 404)
	inv := s.Do("GET", tm.path("/invitations"), tm.owner, nil).Must(t, 200).List()
	if len(inv) != 1 || inv[0]["role"] != "developer" {
		t.Fatalf("invitations after inviting again = %v", inv)
	}
	s.Do("DELETE", tm.path("/invitations/"+inv[0]["id"].(string)), tm.owner, nil).Must(t, 200)
	s.Do("DELETE", tm.path("/invitations/"+inv[0]["id"].(string)), tm.owner, nil).Must(t, 404)
	s.Do("POST", "/api/invites/accept", lee, map[string]any{"token": second}).Must(t, 404)

	// Seven days later the link has expired.
	late := tm.invite(tm.owner, "lee@example.com", "viewer")
	tm.clock.Store(int64(7*24*time.Hour + time.Minute))
	lee = s.Do("POST", "/api/auth/login", "", map[string]any{"email": "lee@example.com", "password": "correct horse battery"}).Must(t, 200).Data()["token"].(string)
	expired := s.Do("POST", "/api/invites/accept", lee, map[string]any{"token": late}).Must(t, 409)
	if !strings.Contains(expired.Message(), "expired") {
		t.Errorf("expired = %s", expired.Raw)
	}
	s.Do("GET", tm.path(""), lee, nil).Must(t, 404)
}

// Roles change by an admin or the owner, never the owner's own and never
// to owner; a member leaves, the owner cannot; an admin removes members.
func TestRoleChangesRemovalAndLeaving(t *testing.T) {
	tm := newTeam(t)
	s := tm.s
	admin, adminID := tm.join("admin")
	developer, developerID := tm.join("developer")
	viewer, viewerID := tm.join("viewer")
	me := s.Do("GET", "/api/account", tm.owner, nil).Must(t, 200).Data()
	ownerID := int64(me["id"].(float64))
	member := func(id int64) string { return tm.path(fmt.Sprintf("/members/%d", id)) }

	members := s.Do("GET", tm.path("/members"), viewer, nil).Must(t, 200).List()
	if len(members) != 4 || members[0]["role"] != "owner" || members[0]["account_id"] != float64(ownerID) {
		t.Fatalf("members = %v", members)
	}

	changed := s.Do("PATCH", member(developerID), admin, map[string]any{"role": "viewer"}).Must(t, 200).Data()
	if changed["role"] != "viewer" {
		t.Errorf("changed = %v", changed)
	}
	s.Do("PUT", tm.path("/schema"), developer, `{"tables": []}`).Must(t, 403) // a viewer now
	s.Do("PATCH", member(developerID), viewer, map[string]any{"role": "admin"}).Must(t, 403)
	s.Do("PATCH", member(ownerID), admin, map[string]any{"role": "viewer"}).Must(t, 403)
	toOwner := s.Do("PATCH", member(developerID), admin, map[string]any{"role": "owner"}).Must(t, 400)
	if !strings.Contains(fmt.Sprint(toOwner.Details()["role"]), "transfer") {
		t.Errorf("to owner = %s", toOwner.Raw)
	}
	s.Do("PATCH", member(ownerID), tm.owner, map[string]any{"role": "admin"}).Must(t, 403)
	s.Do("PATCH", member(999999), admin, map[string]any{"role": "viewer"}).Must(t, 404)
	s.Do("PATCH", tm.path("/members/abc"), admin, map[string]any{"role": "viewer"}).Must(t, 404)

	// A viewer removes nobody else, but leaves.
	s.Do("DELETE", member(developerID), viewer, nil).Must(t, 403)
	left := s.Do("DELETE", member(viewerID), viewer, nil).Must(t, 200)
	if left.Message() != "You left the project" {
		t.Errorf("leave = %s", left.Raw)
	}
	s.Do("GET", tm.path(""), viewer, nil).Must(t, 404)
	// The owner neither leaves nor is removed.
	s.Do("DELETE", member(ownerID), tm.owner, nil).Must(t, 403)
	s.Do("DELETE", member(ownerID), admin, nil).Must(t, 403)
	// An admin removes a member.
	s.Do("DELETE", member(developerID), admin, nil).Must(t, 200)
	s.Do("GET", tm.path(""), developer, nil).Must(t, 404)
	s.Do("DELETE", member(developerID), admin, nil).Must(t, 404)
	if n := len(s.Do("GET", tm.path("/members"), admin, nil).Must(t, 200).List()); n != 2 {
		t.Errorf("%d members left, want the owner and the admin", n)
	}
	_ = adminID
}

// Transfer: only the owner, only to a member, only if the new owner's plan
// allows one more project; the old owner stays as an admin and the
// project counts against the new owner's plan.
func TestOwnershipTransfer(t *testing.T) {
	tm := newTeam(t)
	s := tm.s
	admin, adminID := tm.join("admin")
	adminEmail := s.Do("GET", "/api/account", admin, nil).Must(t, 200).Data()["email"].(string)
	stranger := s.Signup("stranger-" + store.RandomID(6) + "@example.com")
	strangerID := int64(s.Do("GET", "/api/account", stranger, nil).Must(t, 200).Data()["id"].(float64))

	s.Do("POST", tm.path("/transfer"), admin, map[string]any{"account_id": adminID}).Must(t, 403)
	notMember := s.Do("POST", tm.path("/transfer"), tm.owner, map[string]any{"account_id": strangerID}).Must(t, 400)
	if !strings.Contains(fmt.Sprint(notMember.Details()["account_id"]), "not a member") {
		t.Errorf("to a non-member = %s", notMember.Raw)
	}
	s.Do("POST", tm.path("/transfer"), tm.owner, map[string]any{}).Must(t, 400)

	// On the free plan with a project of its own, the admin can take no other.
	ctx := context.Background()
	if err := s.Svc.Store.SetPlan(ctx, adminEmail, "free"); err != nil {
		t.Fatal(err)
	}
	s.Do("POST", "/api/projects", admin, map[string]any{"name": "Own"}).Must(t, 201)
	limit := s.Do("POST", tm.path("/transfer"), tm.owner, map[string]any{"account_id": adminID}).Must(t, 403)
	if limit.ErrorCode() != "PLAN_LIMIT" || !strings.Contains(limit.Message(), "free plan") || !strings.Contains(limit.Message(), "1 project") {
		t.Errorf("over the plan = %s", limit.Raw)
	}
	if err := s.Svc.Store.SetPlan(ctx, adminEmail, "pro"); err != nil {
		t.Fatal(err)
	}
	done := s.Do("POST", tm.path("/transfer"), tm.owner, map[string]any{"account_id": adminID}).Must(t, 200).Data()
	if done["role"] != "admin" {
		t.Errorf("the old owner's role after = %v", done["role"])
	}
	if p := s.Do("GET", tm.path(""), admin, nil).Must(t, 200).Data(); p["role"] != "owner" {
		t.Errorf("new owner's role = %v", p["role"])
	}
	if n := s.Do("GET", "/api/account", admin, nil).Must(t, 200).Data()["usage"].(map[string]any)["projects"]; n != float64(2) {
		t.Errorf("the new owner's project count = %v", n)
	}
	// The rate limit is the new owner's plan's.
	if u := s.Do("GET", tm.path(""), tm.owner, nil).Must(t, 200).Data()["usage"].(map[string]any); u["limit"] != float64(100_000) {
		t.Errorf("the project's limit after the transfer = %v, want pro's", u["limit"])
	}
	// The old owner is an admin now: no delete, no transfer back.
	s.Do("DELETE", tm.path(""), tm.owner, nil).Must(t, 403)
	me := int64(s.Do("GET", "/api/account", tm.owner, nil).Must(t, 200).Data()["id"].(float64))
	s.Do("POST", tm.path("/transfer"), tm.owner, map[string]any{"account_id": me}).Must(t, 403)
	s.Do("POST", tm.path("/transfer"), admin, map[string]any{"account_id": me}).Must(t, 200)
}

// Every change is in the audit log with who made it, newest first, in
// pages; no entry holds a secret.
func TestTheAuditLogRecordsEachChangeWithItsActor(t *testing.T) {
	tm := newTeam(t)
	s := tm.s
	ownerEmail := s.Do("GET", "/api/account", tm.owner, nil).Must(t, 200).Data()["email"].(string)
	developer, developerID := tm.join("developer")
	devEmail := s.Do("GET", "/api/account", developer, nil).Must(t, 200).Data()["email"].(string)

	s.Do("PUT", tm.path("/schema"), developer, `{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}, {"name": "title", "type": "text"}]}]}`).Must(t, 200)
	s.Do("POST", tm.path("/generate"), developer, map[string]any{}).Must(t, 200)
	s.Do("POST", tm.path("/schema/reset"), developer, map[string]any{"version": 1}).Must(t, 200)
	key := s.Do("POST", tm.path("/keys"), developer, map[string]any{"name": "ci"}).Must(t, 201).Data()
	s.Do("DELETE", tm.path("/keys/"+key["id"].(string)), tm.owner, nil).Must(t, 200)
	s.Do("PATCH", tm.path(""), developer, map[string]any{"name": "Renamed", "cors": map[string]any{"allowed_origins": []string{"https://app.example.com"}}}).Must(t, 200)
	s.Do("PATCH", tm.path(fmt.Sprintf("/members/%d", developerID)), tm.owner, map[string]any{"role": "admin"}).Must(t, 200)
	tm.invite(developer, "later@example.com", "viewer")
	s.Do("DELETE", tm.path(fmt.Sprintf("/members/%d", developerID)), tm.owner, nil).Must(t, 200)

	var all []map[string]any
	cursor := ""
	for pages := 0; ; pages++ {
		q := "?limit=3"
		if cursor != "" {
			q += "&before=" + cursor
		}
		res := s.Do("GET", tm.path("/audit"+q), tm.owner, nil).Must(t, 200)
		all = append(all, res.List()...)
		next, _ := res.Body["meta"].(map[string]any)["next_cursor"].(string)
		if next == "" {
			break
		}
		if pages > 10 {
			t.Fatal("the pages do not end")
		}
		cursor = next
	}
	var got []string
	for _, e := range all {
		got = append(got, fmt.Sprint(e["action"], " by ", e["actor_email"]))
	}
	want := []string{
		"member.removed by " + ownerEmail,
		"member.invited by " + devEmail,
		"member.role_changed by " + ownerEmail,
		"project.updated by " + devEmail,
		"key.revoked by " + ownerEmail,
		"key.created by " + devEmail,
		"schema.reset by " + devEmail,
		"schema.generated by " + devEmail,
		"schema.saved by " + devEmail,
		"member.joined by " + devEmail,
		"member.invited by " + ownerEmail,
		"schema.generated by " + ownerEmail,
		"schema.saved by " + ownerEmail,
		"project.created by " + ownerEmail,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit log\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if strings.Contains(fmt.Sprint(all), key["key"].(string)) {
		t.Error("the audit log holds an API key")
	}
	if all[3]["details"].(map[string]any)["name"] != "Renamed" {
		t.Errorf("project.updated details = %v", all[3]["details"])
	}
	if all[5]["target"] != key["id"] {
		t.Errorf("key.created target = %v", all[5]["target"])
	}
	s.Do("GET", tm.path("/audit?limit=0"), tm.owner, nil).Must(t, 400)
	s.Do("GET", tm.path("/audit?before=x"), tm.owner, nil).Must(t, 400)
	s.Do("GET", tm.path("/audit?since=1"), tm.owner, nil).Must(t, 400)
}

// On the generated API a member's dashboard session is admitted like the
// owner's (the Data page, the realtime stream), a viewer's reads only,
// and a removed member's is refused at once.
func TestMembersSessionsOnTheGeneratedAPI(t *testing.T) {
	tm := newTeam(t)
	s := tm.s
	viewer, viewerID := tm.join("viewer")
	developer, _ := tm.join("developer")
	notes := "/v1/" + tm.id + "/notes"

	s.Do("POST", notes, developer, map[string]any{"body": "by the developer"}).Must(t, 201)
	if list := s.Do("GET", notes, viewer, nil).Must(t, 200).List(); len(list) != 1 {
		t.Fatalf("the viewer reads %v", list)
	}
	denied := s.Do("POST", notes, viewer, map[string]any{"body": "by the viewer"}).Must(t, 403)
	if !strings.Contains(denied.Message(), "developer role") {
		t.Errorf("a viewer's write = %s", denied.Raw)
	}
	s.Do("DELETE", tm.path(fmt.Sprintf("/members/%d", viewerID)), tm.owner, nil).Must(t, 200)
	s.Do("GET", notes, viewer, nil).Must(t, 401)
	stranger := s.Signup("stranger-" + store.RandomID(6) + "@example.com")
	s.Do("GET", notes, stranger, nil).Must(t, 401)
}

// The members routes answer as the platform document describes them.
func TestMembersAnswersMatchTheDocument(t *testing.T) {
	_, v := platformDocument(t)
	tm := newTeam(t)
	s := tm.s
	check := func(method, path, token, body string, status int) *testserver.Response {
		t.Helper()
		var payload any
		if body != "" {
			payload = body
		}
		res := s.Do(method, path, token, payload).Must(t, status)
		req, _ := http.NewRequest(method, "http://localhost"+path, nil)
		if body != "" {
			req, _ = http.NewRequest(method, "http://localhost"+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp := &http.Response{StatusCode: res.Status, Header: res.Header, Body: nopCloser{bytes.NewReader(res.Raw)}, Request: req}
		if ok, errs := v.ValidateHttpRequestResponse(req, resp); !ok {
			for _, e := range errs {
				t.Errorf("%s %s: %s: %s", method, path, e.Message, e.Reason)
				for _, f := range e.SchemaValidationErrors {
					t.Errorf("  %s at %s", f.Reason, f.FieldPath)
				}
			}
		}
		return res
	}
	// Addresses of its own: every test of the package shares the database.
	docAddr, lateAddr := "doc-"+store.RandomID(6)+"@example.com", "late-"+store.RandomID(6)+"@example.com"
	dev, devID := tm.join("developer")
	check("GET", tm.path("/members"), dev, "", 200)
	check("POST", tm.path("/members"), tm.owner, `{"email":"`+docAddr+`","role":"viewer"}`, 201)
	token := inviteToken(t, tm.mail.WaitSubject(t, docAddr, "invited you"))
	check("GET", tm.path("/invitations"), tm.owner, "", 200)
	check("POST", tm.path("/members"), dev, `{"email":"x@example.com","role":"viewer"}`, 403)
	check("PATCH", tm.path(fmt.Sprintf("/members/%d", devID)), tm.owner, `{"role":"admin"}`, 200)
	doc := s.Signup(docAddr)
	check("POST", "/api/invites/accept", doc, `{"token":"`+token+`"}`, 200)
	check("POST", tm.path("/members"), tm.owner, `{"email":"`+lateAddr+`","role":"developer"}`, 201)
	inv := check("GET", tm.path("/invitations"), tm.owner, "", 200).List()
	check("DELETE", tm.path("/invitations/"+inv[0]["id"].(string)), tm.owner, "", 200)
	check("GET", tm.path("/audit?limit=2"), tm.owner, "", 200)
	check("POST", tm.path("/transfer"), tm.owner, fmt.Sprintf(`{"account_id":%d}`, devID), 200)
	check("GET", tm.path(""), dev, "", 200)
	check("GET", "/api/projects", doc, "", 200)
	docID := int64(s.Do("GET", "/api/account", doc, nil).Must(t, 200).Data()["id"].(float64))
	check("DELETE", tm.path(fmt.Sprintf("/members/%d", docID)), doc, "", 200)
}
