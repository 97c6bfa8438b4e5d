package realtime_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// The owner's dashboard opens a stream with a one-minute ticket, never
// with its 7-day session in the URL (issue 37.3).
func TestTheDashboardOpensAStreamWithAShortLivedTicketNotItsSession(t *testing.T) {
	var ahead atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	s := testserver.New(t, testserver.WithNow(now))
	p := s.NewProject(rtSchema)
	other := s.NewProject(rtSchema)
	ticketOf := func(p *testserver.Project) string {
		r := s.Do("POST", "/api/projects/"+p.ID+"/stream-tickets", p.Session, nil).Must(t, 201)
		tk, _ := r.Data()["ticket"].(string)
		exp, err := time.Parse(time.RFC3339Nano, r.Data()["expires_at"].(string))
		if !strings.HasPrefix(tk, "tsk_") || err != nil || exp.Sub(now()) > time.Minute+time.Second {
			t.Fatalf("ticket answer %v", r.Data())
		}
		return tk
	}

	// The session in the URL is refused, saying what to do instead.
	r := s.Do("GET", "/v1/"+p.ID+"/realtime?tables=posts&access_token="+p.Session, "", nil).Must(t, 401)
	if !strings.Contains(r.Message(), "stream ticket") {
		t.Errorf("session in the URL: %q", r.Message())
	}
	// A ticket is no key for anything else, nor for another project;
	// only the owner gets one.
	tk := ticketOf(p)
	s.Do("GET", "/v1/"+p.ID+"/posts", tk, nil).Must(t, 401)
	s.Do("GET", "/v1/"+other.ID+"/realtime?tables=posts&ticket="+tk, "", nil).Must(t, 401)
	s.Do("POST", "/api/projects/"+p.ID+"/stream-tickets", other.Session, nil).Must(t, 404)
	s.Do("POST", "/api/projects/"+p.ID+"/stream-tickets", p.Key, nil).Must(t, 401)
	if r := s.Do("GET", "/v1/"+p.ID+"/realtime?tables=posts&ticket=ts_notaticket", "", nil).Must(t, 400); r.Details()["ticket"] == nil {
		t.Errorf("a key as ticket: %v", r.Details())
	}

	// The ticket opens the stream, and the stream outlives the ticket:
	// its re-checks ask whether the account still owns the project.
	st := open(t, s, "/v1/"+p.ID+"/realtime?tables=posts&ticket="+tk, "")
	s.API(p, "POST", "/posts", map[string]any{"title": "first"}).Must(t, 201)
	if ev := st.next(t); ev.Name != "create" || record(ev)["title"] != "first" {
		t.Fatalf("event %+v", ev)
	}
	ahead.Store(int64(2 * time.Minute))
	time.Sleep(5 * time.Second) // past a re-check (every 4 s)
	s.API(p, "POST", "/posts", map[string]any{"title": "after the ticket expired"}).Must(t, 201)
	if ev := st.next(t); record(ev)["title"] != "after the ticket expired" {
		t.Fatalf("event %+v", ev)
	}
	// A ticket older than a minute opens nothing.
	s.Do("GET", "/v1/"+p.ID+"/realtime?tables=posts&ticket="+tk, "", nil).Must(t, 401)
}
