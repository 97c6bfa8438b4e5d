package endusers_test

import (
	"context"
	"testing"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// BenchmarkSessionStatusRead is what a request pays when its session's
// status is not cached (once per StatusTTL per session per node): the
// session lookup in the control schema and the user lookup in the
// project's auth table, as checkStatus runs them.
func BenchmarkSessionStatusRead(b *testing.B) {
	s := testserver.New(b)
	p := s.NewProject(appSchema)
	s.Do("POST", "/v1/"+p.ID+"/auth/register", "", map[string]any{"email": "b@example.com", "password": password}).Must(b, 201)
	var sid string
	ctx := context.Background()
	if err := s.Svc.DB.QueryRowContext(ctx, `SELECT id FROM tablesmith.end_user_sessions WHERE project_id = $1`, p.ID).Scan(&sid); err != nil {
		b.Fatal(err)
	}
	status := `SELECT (t."is_active" IS NOT FALSE) FROM "p_` + p.ID + `"."users" t WHERE t."id" = $1`
	for b.Loop() {
		live, err := s.Svc.Store.EndUserSessionLive(ctx, p.ID, sid, "1")
		if err != nil || !live {
			b.Fatal(live, err)
		}
		var active bool
		if err := s.Svc.DB.QueryRowContext(ctx, status, int64(1)).Scan(&active); err != nil || !active {
			b.Fatal(active, err)
		}
	}
}
