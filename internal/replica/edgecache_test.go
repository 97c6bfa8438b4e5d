package replica_test

import (
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/replica"
	"github.com/tablesmith/tablesmith/internal/testcluster"
)

// A read that shared caches may keep (anonymous, of a table with a cache
// lifetime) runs on the primary: from a replica behind a write, it could
// be stored at the edge just after that write's purge. Other reads of the
// same table still go to the replica.
func TestReadsForSharedCachesRunOnThePrimary(t *testing.T) {
	c := testcluster.Get(t)
	s := node(t, c, "")
	p := s.NewProject(`{"tables": [{"name": "notes", "permissions": {"read": "public"}, "cache": {"max_age": 60},
		"columns": [{"name": "title", "type": "text", "required": true}]}]}`)
	s.API(p, "POST", "/notes", map[string]any{"title": "first"}).Must(t, 201)
	waitFit(t, s, true, 3*time.Second)
	// A read with the key goes to the replica once it is past the key's
	// write: asked until it does (10 s, where the replica polls every
	// replica.DefaultPoll), which also shows the replica in use for the
	// anonymous reads below.
	deadline := time.Now().Add(10 * time.Second)
	for before := replicaReads(s); ; {
		s.API(p, "GET", "/notes", nil).Must(t, 200)
		if replicaReads(s) > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a read with the key never went to the replica")
		}
		time.Sleep(replica.DefaultPoll)
	}
	before := replicaReads(s)
	for _, path := range []string{"/notes/1", "/notes", "/notes/aggregate?count=*"} {
		r := s.Do("GET", "/v1/"+p.ID+path, "", nil).Must(t, 200)
		if r.Header.Get("Cache-Control") != "public, max-age=60" {
			t.Fatalf("GET %s: Cache-Control %q", path, r.Header.Get("Cache-Control"))
		}
	}
	if got := replicaReads(s) - before; got != 0 {
		t.Errorf("the replica served %d of the 3 anonymous reads of a cached table", got)
	}
}
