package platformhttp_test

import (
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// The owner's session also reads the project's generated API (the
// dashboard's Data page); a password change ends the old sessions there
// too, once the cached owner shows it, while the new session works at once.
func TestAPasswordChangeEndsOwnerSessionsOnTheGeneratedAPI(t *testing.T) {
	t.Parallel()
	c := newClock()
	s := testserver.New(t, testserver.WithNow(c.Now))
	s.SetClient("192.0.2.67", false)
	p := s.NewProject(`{"tables":[{"name":"notes","columns":[{"name":"body","type":"text"}]}]}`)
	s.Do("GET", "/v1/"+p.ID+"/notes", p.Session, nil).Must(t, 200)
	fresh := s.Do("POST", "/api/account/password", p.Session, map[string]any{"current_password": testPassword, "new_password": "a brand new password"}).Must(t, 200).Data()["token"].(string)
	s.Do("GET", "/v1/"+p.ID+"/notes", fresh, nil).Must(t, 200)
	c.Add(6 * time.Minute) // past the owner cache's TTL
	s.Do("GET", "/v1/"+p.ID+"/notes", p.Session, nil).Must(t, 401)
	s.Do("GET", "/v1/"+p.ID+"/notes", fresh, nil).Must(t, 200)
}
