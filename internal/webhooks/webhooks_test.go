package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/realtime"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
	"github.com/tablesmith/tablesmith/internal/webhooks"
	"github.com/tablesmith/tablesmith/schema"
)

func TestMain(m *testing.M) { testpg.Main(m, "webhooks") }

const postsDoc = `{"tables": [
	{"name": "posts", "realtime": true, "columns": [{"name": "title", "type": "text"}, {"name": "n", "type": "integer"}]},
	{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`

// received is one delivery as the receiver saw it.
type received struct {
	header http.Header
	body   []byte
	msg    map[string]any
}

// receiver is a real HTTP server on loopback that answers each delivery
// with the status status returns (200 when nil).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []received
	status func(n int) int
}

func newReceiver(t *testing.T, status func(n int) int) *receiver {
	rc := &receiver{status: status}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var msg map[string]any
		_ = json.Unmarshal(body, &msg)
		rc.mu.Lock()
		rc.got = append(rc.got, received{header: r.Header.Clone(), body: body, msg: msg})
		n := len(rc.got)
		rc.mu.Unlock()
		code := 200
		if rc.status != nil {
			code = rc.status(n)
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, "answer %d", n)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// distinct is all() with each run of the same webhook-id counted once:
// delivery is at least once, and a node that loses its lease (a loaded
// machine can hold its renewal past the 4 s) sends a change again.
func (rc *receiver) distinct() []received {
	var out []received
	for _, r := range rc.all() {
		if len(out) == 0 || out[len(out)-1].header.Get("webhook-id") != r.header.Get("webhook-id") {
			out = append(out, r)
		}
	}
	return out
}

// waitFor polls until cond holds; the bound is far above the 100 ms a
// delivery takes, for a machine loaded by the whole suite.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func allowPrivate(c *service.Config) { c.WebhookAllowPrivate = true }

// verify checks a delivery's signature with a whsec_ secret, as a
// Standard Webhooks library does: some v1 signature must match.
func verify(t *testing.T, secret string, r received) bool {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(r.header.Get("webhook-id") + "." + r.header.Get("webhook-timestamp") + "." + string(r.body)))
	want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	for _, sig := range strings.Fields(r.header.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

func createWebhook(t *testing.T, s *testserver.Server, p *testserver.Project, body map[string]any) map[string]any {
	t.Helper()
	hook := s.Do("POST", "/api/projects/"+p.ID+"/webhooks", p.Session, body).Must(t, 201).Data()
	// The package's tests share a database: a webhook left behind would
	// be leased by the next test's service, aimed at a closed receiver.
	t.Cleanup(func() { _, _ = s.Svc.DB.Exec(`DELETE FROM tablesmith.webhooks WHERE id = $1`, hook["id"]) })
	return hook
}

func TestAWebhookDeliversEveryChangeInOrderSignedPerStandardWebhooks(t *testing.T) {
	s := testserver.New(t, testserver.WithConfig(allowPrivate))
	p := s.NewProject(postsDoc)
	rc := newReceiver(t, nil)
	hook := createWebhook(t, s, p, map[string]any{"url": rc.URL + "/hook", "tables": []string{"posts"}})
	secret, _ := hook["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || hook["id"] == "" || hook["enabled"] != true {
		t.Fatalf("created %v", hook)
	}
	if got := fmt.Sprint(hook["events"]); got != "[insert update delete]" {
		t.Errorf("events default to %s, want every event", got)
	}

	created := s.API(p, "POST", "/posts", map[string]any{"title": "one", "n": 1}).Must(t, 201).Data()
	id := created["id"]
	s.API(p, "PATCH", fmt.Sprintf("/posts/%v", id), map[string]any{"n": 2}).Must(t, 200)
	s.API(p, "DELETE", fmt.Sprintf("/posts/%v", id), nil).Must(t, 200)
	s.API(p, "POST", "/notes", map[string]any{"body": "not captured, not delivered"}).Must(t, 201)
	waitFor(t, "three deliveries", func() bool { return len(rc.distinct()) >= 3 })
	time.Sleep(300 * time.Millisecond) // a fourth would have come by now
	got := rc.distinct()
	if len(got) != 3 {
		t.Fatalf("%d deliveries, want 3", len(got))
	}
	var last float64
	for i, want := range []string{"insert", "update", "delete"} {
		r := got[i]
		if r.msg["type"] != want || r.msg["table"] != "posts" || r.msg["project"] != p.ID {
			t.Errorf("delivery %d = %s, want a %s of posts", i, r.body, want)
		}
		cid, _ := r.msg["change_id"].(float64)
		if cid <= last {
			t.Errorf("delivery %d has change_id %v after %v: out of order", i, cid, last)
		}
		last = cid
		if r.header.Get("webhook-id") != fmt.Sprintf("%s_%d", hook["id"], int64(cid)) {
			t.Errorf("webhook-id %q, want the webhook's id and the change id", r.header.Get("webhook-id"))
		}
		ts, err := strconv.ParseInt(r.header.Get("webhook-timestamp"), 10, 64)
		if err != nil || time.Since(time.Unix(ts, 0)) > time.Minute {
			t.Errorf("webhook-timestamp %q", r.header.Get("webhook-timestamp"))
		}
		if !verify(t, secret, r) {
			t.Errorf("delivery %d: signature %q does not verify with the secret", i, r.header.Get("webhook-signature"))
		}
		if at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(r.msg["committed_at"])); err != nil || time.Since(at) > time.Minute {
			t.Errorf("committed_at %v", r.msg["committed_at"])
		}
		if r.header.Get("Content-Type") != "application/json" {
			t.Errorf("Content-Type %q", r.header.Get("Content-Type"))
		}
	}
	if rec, _ := got[1].msg["record"].(map[string]any); rec["n"] != float64(2) || rec["title"] != "one" {
		t.Errorf("the update's record is %v, want the row after it", got[1].msg["record"])
	}
	// The row before the update, as the create's answer showed it
	// (timestamps included).
	if old := got[1].msg["old_record"]; !reflect.DeepEqual(old, created) {
		t.Errorf("the update's old_record is %v, want the row before it, %v", old, created)
	}
	if got[2].msg["record"] != nil {
		t.Errorf("a delete's record is %v, want null", got[2].msg["record"])
	}
	if old, _ := got[2].msg["old_record"].(map[string]any); old["title"] != "one" {
		t.Errorf("a delete's old_record is %v, want the row removed", got[2].msg["old_record"])
	}

	// The delivery log has each attempt, newest first.
	var ds []map[string]any
	waitFor(t, "three attempts logged", func() bool { // logged right after the receiver answered
		ds = s.Do("GET", fmt.Sprintf("/api/projects/%s/webhooks/%s/deliveries", p.ID, hook["id"]), p.Session, nil).Must(t, 200).List()
		return len(ds) >= len(rc.all())
	})
	if len(ds) < 3 || ds[0]["event"] != "delete" || ds[0]["status"] != float64(200) || ds[0]["response"] != fmt.Sprint("answer ", len(rc.all())) {
		t.Fatalf("deliveries = %v", ds)
	}
	// Its cursor moved past every change.
	h := s.Do("GET", fmt.Sprintf("/api/projects/%s/webhooks/%s", p.ID, hook["id"]), p.Session, nil).Must(t, 200).Data()
	if h["cursor"] != last || h["secret"] != nil {
		t.Errorf("webhook = %v, want cursor %v and no secret", h, last)
	}
}

func TestAWebhookTakesOnlyItsEventsAndItsCondition(t *testing.T) {
	s := testserver.New(t, testserver.WithConfig(allowPrivate))
	p := s.NewProject(postsDoc)
	rc := newReceiver(t, nil)
	createWebhook(t, s, p, map[string]any{"url": rc.URL, "tables": []string{"posts"}, "events": []string{"insert"},
		"where": map[string]string{"posts": "n>=10"}})
	s.API(p, "POST", "/posts", map[string]any{"title": "small", "n": 1}).Must(t, 201)
	big := s.API(p, "POST", "/posts", map[string]any{"title": "big", "n": 10}).Must(t, 201).Data()["id"]
	s.API(p, "PATCH", fmt.Sprintf("/posts/%v", big), map[string]any{"n": 11}).Must(t, 200)
	s.API(p, "POST", "/posts", map[string]any{"title": "last", "n": 12}).Must(t, 201)
	waitFor(t, "two deliveries", func() bool { return len(rc.distinct()) >= 2 })
	time.Sleep(300 * time.Millisecond)
	got := rc.distinct()
	if len(got) != 2 {
		t.Fatalf("%d deliveries, want the two inserts with n >= 10", len(got))
	}
	for i, title := range []string{"big", "last"} {
		if rec, _ := got[i].msg["record"].(map[string]any); got[i].msg["type"] != "insert" || rec["title"] != title {
			t.Errorf("delivery %d = %s, want the insert of %s", i, got[i].body, title)
		}
	}
}

func TestAFailingReceiverGetsTheSameChangeAgainUntilItAcceptsAndNothingIsSkipped(t *testing.T) {
	s := testserver.New(t, testserver.WithConfig(allowPrivate), testserver.WithConfig(func(c *service.Config) {
		c.WebhookBackoff = func(int) time.Duration { return 100 * time.Millisecond }
	}))
	p := s.NewProject(postsDoc)
	rc := newReceiver(t, func(n int) int {
		if n <= 2 {
			return 503 // down for the first two attempts
		}
		return 204
	})
	hook := createWebhook(t, s, p, map[string]any{"url": rc.URL, "tables": []string{"posts"}})
	for i := range 3 {
		s.API(p, "POST", "/posts", map[string]any{"title": fmt.Sprint("t", i)}).Must(t, 201)
	}
	waitFor(t, "five attempts", func() bool { return len(rc.all()) >= 5 })
	got := rc.all()
	ids := []string{}
	for _, r := range got {
		ids = append(ids, r.header.Get("webhook-id"))
	}
	if ids[0] != ids[1] || ids[1] != ids[2] || ids[2] == ids[3] || ids[3] == ids[4] {
		t.Fatalf("webhook-ids %v: want the first change three times (two failures, then accepted), then the others once each", ids)
	}
	for i, want := range []string{"t0", "t1", "t2"} {
		if rec, _ := got[i+2].msg["record"].(map[string]any); rec["title"] != want {
			t.Errorf("accepted delivery %d is %v, want %s", i, got[i+2].msg["record"], want)
		}
	}
	var ds []map[string]any
	waitFor(t, "five attempts logged", func() bool {
		ds = s.Do("GET", fmt.Sprintf("/api/projects/%s/webhooks/%s/deliveries?limit=5", p.ID, hook["id"]), p.Session, nil).Must(t, 200).List()
		return len(ds) == 5
	})
	// The worker clears its lag right after its last advance: wait for it.
	var st webhooks.Stats
	waitFor(t, "the node's stats to settle", func() bool {
		st = s.Svc.Webhooks.Stats()
		return st.Lag == 0 && st.Active == 1
	})
	if st.Delivered != 3 || st.Failed != 2 {
		t.Errorf("stats = %+v, want 3 delivered and 2 failed", st)
	}
	if len(ds) != 5 || ds[4]["status"] != float64(503) || ds[4]["error"] != "the receiver answered 503" || ds[4]["next_retry_at"] == nil ||
		ds[3]["attempt"] != float64(2) || ds[2]["attempt"] != float64(3) || ds[2]["status"] != float64(204) {
		t.Fatalf("deliveries = %v", ds)
	}

	// The log pages by meta.next_before, which names the next page only
	// when there is one: pages of 2, 2 and 1 hold the five attempts in order.
	var paged []map[string]any
	query := "?limit=2"
	for range 4 {
		r := s.Do("GET", fmt.Sprintf("/api/projects/%s/webhooks/%s/deliveries%s", p.ID, hook["id"], query), p.Session, nil).Must(t, 200)
		paged = append(paged, r.List()...)
		next := r.Body["meta"].(map[string]any)["next_before"]
		if next == nil {
			break
		}
		query = fmt.Sprintf("?limit=2&before=%v", next)
	}
	if len(paged) != 5 {
		t.Fatalf("paging by next_before read %d attempts, want the 5", len(paged))
	}
	for i := range paged {
		if paged[i]["id"] != ds[i]["id"] {
			t.Fatalf("attempt %d of the pages is %v, want %v", i, paged[i]["id"], ds[i]["id"])
		}
	}
	// A page that holds exactly what is left is the last.
	if r := s.Do("GET", fmt.Sprintf("/api/projects/%s/webhooks/%s/deliveries?limit=5", p.ID, hook["id"]), p.Session, nil).Must(t, 200); r.Body["meta"].(map[string]any)["next_before"] != nil {
		t.Errorf("a page of all five names a next page: %v", r.Body["meta"])
	}
	// What the list cannot read whole is refused, naming what is wrong.
	for _, q := range []string{"?limit=0", "?limit=201", "?before=x", "?before=-1", "?status=failed", "?limit=1&limit=2", "?limit=1;x"} {
		r := s.Do("GET", fmt.Sprintf("/api/projects/%s/webhooks/%s/deliveries%s", p.ID, hook["id"], q), p.Session, nil)
		if r.Status != 400 || r.ErrorCode() != "INVALID_QUERY" {
			t.Errorf("%s: %d %s, want 400 INVALID_QUERY", q, r.Status, r.Raw)
		}
	}
}

func TestTheChangeLogKeepsWhatAWebhookHasNotDelivered(t *testing.T) {
	s := testserver.New(t, testserver.WithConfig(allowPrivate), testserver.WithConfig(func(c *service.Config) {
		c.WebhookBackoff = func(int) time.Duration { return time.Hour } // the receiver stays down for the test
	}))
	p := s.NewProject(postsDoc)
	rc := newReceiver(t, func(int) int { return 500 })
	createWebhook(t, s, p, map[string]any{"url": rc.URL, "tables": []string{"posts"}})
	s.API(p, "POST", "/posts", map[string]any{"title": "kept"}).Must(t, 201)
	waitFor(t, "the first attempt", func() bool { return len(rc.all()) >= 1 })
	holds, err := (&webhooks.Store{DB: s.Svc.DB}).Holds(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A retention of zero would remove every change; the webhook's hold
	// keeps the one it has not delivered.
	if _, err := realtime.Prune(context.Background(), s.Svc.DB, 0, holds); err != nil {
		t.Fatal(err)
	}
	var left int
	log := schema.QuoteIdent(schema.ProjectSchema(p.ID)) + "." + schema.QuoteIdent(schema.RealtimeLog)
	if err := s.Svc.DB.QueryRow(`SELECT count(*) FROM ` + log).Scan(&left); err != nil || left != 1 {
		t.Fatalf("%d changes left (%v), want the undelivered one", left, err)
	}
}

// TestAWebhooksHoldRemovesNothingInsideTheRetentionWindow: the hold only
// keeps changes; changes newer than the window stay whatever the
// webhook's cursor (a hold once cut the log at the cursor, and a realtime
// client resuming from before it was told to reload).
func TestAWebhooksHoldRemovesNothingInsideTheRetentionWindow(t *testing.T) {
	s := testserver.New(t, testserver.WithConfig(allowPrivate))
	p := s.NewProject(postsDoc)
	rc := newReceiver(t, func(int) int { return 200 })
	createWebhook(t, s, p, map[string]any{"url": rc.URL, "tables": []string{"posts"}})
	for _, title := range []string{"one", "two", "three"} {
		s.API(p, "POST", "/posts", map[string]any{"title": title}).Must(t, 201)
	}
	st := &webhooks.Store{DB: s.Svc.DB}
	var holds map[string]int64
	waitFor(t, "the webhook's cursor past the three changes", func() bool {
		var err error
		holds, err = st.Holds(context.Background())
		return err == nil && holds[p.ID] >= 3
	})
	removed, err := realtime.Prune(context.Background(), s.Svc.DB, time.Hour, holds)
	if err != nil {
		t.Fatal(err)
	}
	state, err := realtime.ReadLogState(context.Background(), s.Svc.DB, schema.ProjectSchema(p.ID))
	if err != nil {
		t.Fatal(err)
	}
	if removed != 0 || state.Pruned != 0 {
		t.Fatalf("pruning with an hour's window removed %d changes and marked %d pruned, want none", removed, state.Pruned)
	}
}

func TestWebhookConfigurationIsStrict(t *testing.T) {
	s := testserver.New(t, testserver.WithPlans(plans.Defaults(), "free"))
	p := s.NewProject(postsDoc)
	path := "/api/projects/" + p.ID + "/webhooks"
	cases := []struct {
		body  any
		code  string
		field string
	}{
		{map[string]any{"url": "https://example.com/h", "tables": []string{"posts"}, "extra": 1}, "VALIDATION_ERROR", "extra"},
		{map[string]any{"tables": []string{"posts"}}, "VALIDATION_ERROR", "url"},
		{map[string]any{"url": "ftp://example.com", "tables": []string{"posts"}}, "VALIDATION_ERROR", "url"},
		{map[string]any{"url": "https://user:pw@example.com", "tables": []string{"posts"}}, "VALIDATION_ERROR", "url"},
		{map[string]any{"url": "http://127.0.0.1:9000/h", "tables": []string{"posts"}}, "VALIDATION_ERROR", "url"},
		{map[string]any{"url": "http://169.254.169.254/latest", "tables": []string{"posts"}}, "VALIDATION_ERROR", "url"},
		{map[string]any{"url": "http://[::1]/h", "tables": []string{"posts"}}, "VALIDATION_ERROR", "url"},
		{map[string]any{"url": "http://localhost/h", "tables": []string{"posts"}}, "VALIDATION_ERROR", "url"},
		{map[string]any{"url": "https://example.com/h", "tables": []string{}}, "VALIDATION_ERROR", "tables"},
		{map[string]any{"url": "https://example.com/h", "tables": []string{"nope"}}, "VALIDATION_ERROR", "tables"},
		{map[string]any{"url": "https://example.com/h", "tables": []string{"posts"}, "events": []string{"upsert"}}, "VALIDATION_ERROR", "events"},
		{map[string]any{"url": "https://example.com/h", "tables": []string{"posts"}, "where": map[string]string{"posts": "nope=1"}}, "VALIDATION_ERROR", "where.posts"},
		{map[string]any{"url": "https://example.com/h", "tables": []string{"posts"}, "where": map[string]string{"notes": "body=x"}}, "VALIDATION_ERROR", "where.notes"},
	}
	for _, c := range cases {
		r := s.Do("POST", path, p.Session, c.body)
		if r.ErrorCode() != c.code {
			t.Errorf("%v: %d %s %s, want %s", c.body, r.Status, r.ErrorCode(), r.Raw, c.code)
			continue
		}
		if c.field != "" && r.Details()[c.field] == nil {
			t.Errorf("%v: details %v do not name %s", c.body, r.Details(), c.field)
		}
	}
	// The free plan allows two webhooks per project.
	for range 2 {
		createWebhook(t, s, p, map[string]any{"url": "https://example.com/h", "tables": []string{"posts"}})
	}
	if r := s.Do("POST", path, p.Session, map[string]any{"url": "https://example.com/h", "tables": []string{"posts"}}); r.Status != 403 || r.ErrorCode() != "PLAN_LIMIT" {
		t.Errorf("a third webhook on the free plan: %d %s", r.Status, r.Raw)
	}
	// Another account's project is not found.
	other := s.NewProject(postsDoc)
	if r := s.Do("GET", path, other.Session, nil); r.Status != 404 {
		t.Errorf("another owner's webhooks: %d", r.Status)
	}
	if r := s.Do("GET", path+"/deliveries-nope", p.Session, nil); r.Status != 404 {
		t.Errorf("an unknown webhook: %d", r.Status)
	}
}

func TestARotatedSecretSignsBesideThePreviousOneAndReplaySendsTheSameIDs(t *testing.T) {
	s := testserver.New(t, testserver.WithConfig(allowPrivate))
	p := s.NewProject(postsDoc)
	rc := newReceiver(t, nil)
	hook := createWebhook(t, s, p, map[string]any{"url": rc.URL, "tables": []string{"posts"}})
	base := fmt.Sprintf("/api/projects/%s/webhooks/%s", p.ID, hook["id"])
	s.API(p, "POST", "/posts", map[string]any{"title": "before"}).Must(t, 201)
	waitFor(t, "the first delivery", func() bool { return len(rc.distinct()) >= 1 })

	rot := s.Do("POST", base+"/rotate-secret", p.Session, nil).Must(t, 200).Data()
	newSecret, _ := rot["secret"].(string)
	if newSecret == hook["secret"] || rot["previous_secret_until"] == nil {
		t.Fatalf("rotate = %v", rot)
	}
	s.API(p, "POST", "/posts", map[string]any{"title": "after"}).Must(t, 201)
	waitFor(t, "the second delivery", func() bool { return len(rc.distinct()) >= 2 })
	after := rc.distinct()[1]
	if !verify(t, newSecret, after) || !verify(t, hook["secret"].(string), after) {
		t.Errorf("after a rotation a delivery must verify with both secrets: %q", after.header.Get("webhook-signature"))
	}
	if verify(t, newSecret, rc.distinct()[0]) {
		t.Errorf("the new secret verifies a delivery signed before it existed")
	}

	first := rc.distinct()[0]
	cid := int64(first.msg["change_id"].(float64))
	s.Do("POST", base+"/replay", p.Session, map[string]any{"from_change_id": cid}).Must(t, 200)
	waitFor(t, "the replay", func() bool { return len(rc.distinct()) >= 4 })
	got := rc.distinct()
	if got[2].header.Get("webhook-id") != first.header.Get("webhook-id") || got[3].header.Get("webhook-id") != after.header.Get("webhook-id") {
		t.Errorf("replayed ids %q %q, want %q %q", got[2].header.Get("webhook-id"), got[3].header.Get("webhook-id"),
			first.header.Get("webhook-id"), after.header.Get("webhook-id"))
	}
	if r := s.Do("POST", base+"/replay", p.Session, map[string]any{"from_change_id": 1, "since": time.Now()}); r.ErrorCode() != "VALIDATION_ERROR" {
		t.Errorf("replay with both: %d %s", r.Status, r.Raw)
	}
	if r := s.Do("POST", base+"/replay", p.Session, map[string]any{"from_change_id": 0}); r.ErrorCode() != "VALIDATION_ERROR" || r.Details()["from_change_id"] == nil {
		t.Errorf("replay from change 0: %d %s", r.Status, r.Raw)
	}

	// Disabled, it delivers nothing; enabled again, it resumes.
	s.Do("PATCH", base, p.Session, map[string]any{"enabled": false}).Must(t, 200)
	s.API(p, "POST", "/posts", map[string]any{"title": "while off"}).Must(t, 201)
	time.Sleep(500 * time.Millisecond)
	if n := len(rc.distinct()); n != 4 {
		t.Fatalf("a disabled webhook delivered: %d deliveries", n)
	}
	s.Do("PATCH", base, p.Session, map[string]any{"enabled": true}).Must(t, 200)
	waitFor(t, "the delivery after enabling", func() bool { return len(rc.distinct()) >= 5 })
	s.Do("DELETE", base, p.Session, nil).Must(t, 200)
	s.Do("GET", base, p.Session, nil).Must(t, 404)
}

// Two nodes on one database: the webhook's deliveries move to the other
// node when the one that held its lease stops (its lease runs out: 4 s),
// and every change written meanwhile arrives, in order.
func TestAnotherNodeTakesAWebhookOverWhenItsNodeStops(t *testing.T) {
	a := testserver.New(t, testserver.WithConfig(allowPrivate))
	p := a.NewProject(postsDoc)
	rc := newReceiver(t, nil)
	createWebhook(t, a, p, map[string]any{"url": rc.URL, "tables": []string{"posts"}})
	a.API(p, "POST", "/posts", map[string]any{"title": "by a"}).Must(t, 201)
	waitFor(t, "the first node's delivery", func() bool { return len(rc.all()) == 1 })

	b := a.Beside(testserver.WithConfig(allowPrivate))                                                        // started after a leased the webhook
	t.Cleanup(func() { _, _ = b.Svc.DB.Exec(`DELETE FROM tablesmith.webhooks WHERE project_id = $1`, p.ID) }) // a's pool is closed
	a.Svc.Close()
	stopped := time.Now()
	for i := range 20 {
		b.API(p, "POST", "/posts", map[string]any{"title": "by b", "n": i}).Must(t, 201)
	}
	waitFor(t, "the other node's deliveries", func() bool { return len(rc.all()) >= 21 })
	// The margin: the lease's 4 s, a poll's second, and scheduling.
	if took := time.Since(stopped); took > 15*time.Second {
		t.Errorf("the other node delivered %v after the first stopped", took)
	}
	seen := map[float64]bool{}
	var last float64
	for _, r := range rc.all()[1:] {
		cid := r.msg["change_id"].(float64)
		if !seen[cid] && cid < last {
			t.Errorf("change %v arrived after %v", cid, last)
		}
		seen[cid], last = true, max(last, cid)
	}
	if len(seen) != 20 {
		t.Errorf("%d distinct changes delivered by the other node, want 20", len(seen))
	}
}

func TestAPlansDeliveriesPerHourPauseAWebhookWithoutLosingItsChangesOrSpendingRequests(t *testing.T) {
	// The allowance is counted per clock hour: a test that straddled an
	// hour's end would see it renewed, so it starts after the turn.
	if left := time.Until(time.Now().Truncate(time.Hour).Add(time.Hour)); left < 30*time.Second {
		time.Sleep(left + time.Second)
	}
	set := plans.Defaults()
	free := set["free"]
	free.WebhookDeliveries = 3
	set["free"] = free
	s := testserver.New(t, testserver.WithConfig(allowPrivate), testserver.WithPlans(set, "free"))
	p := s.NewProject(postsDoc)
	rc := newReceiver(t, nil)
	hook := createWebhook(t, s, p, map[string]any{"url": rc.URL + "/hook", "tables": []string{"posts"}, "events": []string{"insert"}})

	var ids []float64
	for i := range 5 {
		id, _ := s.API(p, "POST", "/posts", map[string]any{"title": "t", "n": i}).Must(t, 201).Data()["id"].(float64)
		ids = append(ids, id)
	}
	waitFor(t, "three deliveries", func() bool { return len(rc.distinct()) >= 3 })
	// The fourth would have come within milliseconds; a second is far above that.
	time.Sleep(time.Second)
	got := rc.distinct()
	if len(got) != 3 {
		t.Fatalf("%d deliveries with an allowance of 3 an hour, want 3", len(got))
	}
	for i, r := range got {
		if rec, _ := r.msg["record"].(map[string]any); rec["id"] != ids[i] {
			t.Errorf("delivery %d is of record %v, want %v (in order)", i, rec["id"], ids[i])
		}
	}

	// Paused until the next hour, with the undelivered changes still ahead
	// of its cursor: nothing is skipped.
	h := s.Do("GET", fmt.Sprintf("/api/projects/%s/webhooks/%s", p.ID, hook["id"]), p.Session, nil).Must(t, 200).Data()
	next, err := time.Parse(time.RFC3339Nano, fmt.Sprint(h["next_attempt_at"]))
	if hourEnd := time.Now().Truncate(time.Hour).Add(time.Hour); err != nil || next.Before(hourEnd.Add(-time.Second)) {
		t.Errorf("next_attempt_at = %v, want the next hour (%v)", h["next_attempt_at"], hourEnd)
	}
	if h["enabled"] != true {
		t.Errorf("a webhook out of deliveries is %v, want still enabled (paused, not disabled)", h["enabled"])
	}
	if h["cursor"] != got[2].msg["change_id"] {
		t.Errorf("cursor = %v, want the third change's id %v: the fourth and fifth wait", h["cursor"], got[2].msg["change_id"])
	}
	changes := s.Do("GET", fmt.Sprintf("/api/projects/%s/webhooks/%s/deliveries", p.ID, hook["id"]), p.Session, nil).Must(t, 200).List()
	if len(changes) != len(rc.all()) {
		t.Errorf("%d attempts logged, %d received", len(changes), len(rc.all()))
	}

	// Deliveries are counted apart from API requests: the plan's 100
	// requests an hour went down by the six this test sent, not by the
	// deliveries.
	r := s.API(p, "GET", "/posts", nil).Must(t, 200)
	if remaining := r.Header.Get("X-RateLimit-Remaining"); remaining != "94" {
		t.Errorf("X-RateLimit-Remaining = %q after 6 requests and 3 deliveries, want 94", remaining)
	}
}

const notesDoc = `{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`

// planned finds the plan's change of a table with a description that
// starts with prefix.
func planned(changes []any, table, prefix string) bool {
	for _, c := range changes {
		m, _ := c.(map[string]any)
		if m["table"] == table && strings.HasPrefix(fmt.Sprint(m["description"]), prefix) {
			return true
		}
	}
	return false
}

func TestAWebhookOnATableWithoutCaptureWaitsForTheGenerateThatSwitchesItOnAndDeliversFromThere(t *testing.T) {
	s := testserver.New(t, testserver.WithConfig(allowPrivate))
	p := s.NewProject(notesDoc) // no realtime table: no change log yet
	rc := newReceiver(t, nil)
	hook := createWebhook(t, s, p, map[string]any{"url": rc.URL, "tables": []string{"notes"}})
	if got := fmt.Sprint(hook["awaiting_generate"]); got != "[notes]" {
		t.Fatalf("created with awaiting_generate %s, want [notes]", got)
	}
	base := fmt.Sprintf("/api/projects/%s/webhooks/%s", p.ID, hook["id"])
	if got := fmt.Sprint(s.Do("GET", base, p.Session, nil).Must(t, 200).Data()["awaiting_generate"]); got != "[notes]" {
		t.Errorf("GET shows awaiting_generate %s, want [notes]", got)
	}
	s.API(p, "POST", "/notes", map[string]any{"body": "before"}).Must(t, 201)

	// The plan preview says it turns realtime on, and for which webhook.
	why := fmt.Sprintf("turn realtime on for notes (webhook %s delivers its changes;", hook["id"])
	plan := s.Do("GET", "/api/projects/"+p.ID+"/schema/plan", p.Session, nil).Must(t, 200).Data()
	if changes, _ := plan["changes"].([]any); !planned(changes, "notes", why) {
		t.Fatalf("plan %v: want a change %q…", plan["changes"], why)
	}
	res := s.Do("POST", "/api/projects/"+p.ID+"/generate", p.Session, map[string]any{}).Must(t, 200).Data()
	if applied, _ := res["applied"].([]any); !planned(applied, "notes", why) {
		t.Errorf("generate applied %v: want the change with its reason", res["applied"])
	}

	// The draft has the switch on too: nothing is left unpublished.
	draft := s.Do("GET", "/api/projects/"+p.ID+"/schema", p.Session, nil).Must(t, 200)
	var env struct {
		Data struct{ Tables []schema.Table }
		Meta struct {
			HasUnpublishedChanges bool `json:"has_unpublished_changes"`
		}
	}
	if err := json.Unmarshal(draft.Raw, &env); err != nil || len(env.Data.Tables) != 1 || !env.Data.Tables[0].Realtime || env.Meta.HasUnpublishedChanges {
		t.Errorf("draft after the generate: %s (%v), want notes with realtime on and nothing unpublished", draft.Raw, err)
	}
	if got := fmt.Sprint(s.Do("GET", base, p.Session, nil).Must(t, 200).Data()["awaiting_generate"]); got != "[]" {
		t.Errorf("after the generate awaiting_generate is %s, want []", got)
	}

	// What commits from then on is delivered; what came before was never
	// in the log.
	s.API(p, "POST", "/notes", map[string]any{"body": "after"}).Must(t, 201)
	waitFor(t, "the delivery", func() bool { return len(rc.distinct()) >= 1 })
	time.Sleep(300 * time.Millisecond) // a second would have come by now
	got := rc.distinct()
	if rec, _ := got[0].msg["record"].(map[string]any); len(got) != 1 || got[0].msg["type"] != "insert" || rec["body"] != "after" {
		t.Errorf("deliveries %d, the first %s: want the insert of \"after\" alone", len(got), got[0].body)
	}
}

func TestAGenerateThatWouldStopCapturingAWebhooksTableIsRefusedNamingTheTableAndTheWebhook(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(postsDoc)
	hook := createWebhook(t, s, p, map[string]any{"url": "https://example.com/h", "tables": []string{"posts"}})
	id := fmt.Sprint(hook["id"])
	if got := fmt.Sprint(hook["awaiting_generate"]); got != "[]" {
		t.Errorf("a webhook on a captured table has awaiting_generate %s, want []", got)
	}
	off := strings.Replace(postsDoc, `"realtime": true, `, "", 1)
	schemaPath, generate := "/api/projects/"+p.ID+"/schema", "/api/projects/"+p.ID+"/generate"
	for _, c := range []struct{ what, doc, field string }{
		{"realtime off", off, "tables[0].realtime"},
		{"the table dropped", notesDoc, "posts"},
	} {
		s.Do("PUT", schemaPath, p.Session, c.doc).Must(t, 200)
		for _, r := range []*testserver.Response{
			s.Do("GET", schemaPath+"/plan", p.Session, nil),
			s.Do("POST", generate, p.Session, map[string]any{"confirm_destructive": true}),
		} {
			msg := fmt.Sprint(r.Details()[c.field])
			if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(msg, id) || !strings.Contains(msg, "posts") {
				t.Errorf("%s: %d %s, want 400 VALIDATION_ERROR with %s naming posts and %s", c.what, r.Status, r.Raw, c.field, id)
			}
		}
	}

	// Once the webhook takes notes instead, posts may stop capturing, and
	// the same generate switches notes on.
	moved := s.Do("PATCH", "/api/projects/"+p.ID+"/webhooks/"+id, p.Session, map[string]any{"tables": []string{"notes"}}).Must(t, 200).Data()
	if got := fmt.Sprint(moved["awaiting_generate"]); got != "[notes]" {
		t.Errorf("moved to notes, awaiting_generate is %s, want [notes]", got)
	}
	s.Do("PUT", schemaPath, p.Session, off).Must(t, 200)
	s.Do("POST", generate, p.Session, map[string]any{}).Must(t, 200)
	v := s.Do("GET", schemaPath+"/versions/2", p.Session, nil).Must(t, 200).Data()
	doc, err := json.Marshal(v["document"])
	if err != nil {
		t.Fatal(err)
	}
	published, err := schema.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	posts, _ := published.Table("posts")
	notes, _ := published.Table("notes")
	if posts.Realtime || !notes.Realtime {
		t.Errorf("published %s: want realtime off for posts and on for notes", doc)
	}
	// Deleting the webhook lets notes go.
	s.Do("DELETE", "/api/projects/"+p.ID+"/webhooks/"+id, p.Session, nil).Must(t, 200)
	s.Do("PUT", schemaPath, p.Session, `{"tables": [{"name": "posts", "columns": [{"name": "title", "type": "text"}, {"name": "n", "type": "integer"}]}]}`).Must(t, 200)
	s.Do("POST", generate, p.Session, map[string]any{"confirm_destructive": true}).Must(t, 200)
}
