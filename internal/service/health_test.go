package service_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testcluster"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

func TestMain(m *testing.M) { testpg.Main(m, "service", testcluster.Stop) }

func TestHealthAndReadyAnswer200OnAStartedNodeEveryTime(t *testing.T) {
	s := testserver.New(t)
	for _, path := range []string{"/api/health", "/api/ready"} {
		// Many in a row: a load balancer polls, and nothing limits it.
		for range 150 {
			r := s.Do("GET", path, "", nil).Must(t, 200)
			if r.Body["success"] != true || r.Header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Fatalf("%s: %s (%s)", path, r.Raw, r.Header.Get("Content-Type"))
			}
		}
	}
	if r := s.Do("HEAD", "/api/ready", "", nil); r.Status != 200 {
		t.Fatalf("HEAD /api/ready: %d", r.Status)
	}
	r := s.Do("POST", "/api/health", "", nil).Must(t, 405)
	if r.Header.Get("Allow") != "GET, HEAD" || r.ErrorCode() != "METHOD_NOT_ALLOWED" {
		t.Fatalf("POST /api/health: %s, Allow %q", r.Raw, r.Header.Get("Allow"))
	}
}

func TestANodeThatHasNotStartedIsHealthyButNotReadyAndSaysStarting(t *testing.T) {
	svc, err := service.New(service.Config{DatabaseURL: testpg.URL(t), Secret: "x"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	get := func(path string) (*httptest.ResponseRecorder, map[string]any) {
		w := httptest.NewRecorder()
		svc.Platform().ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		var body map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: %v: %s", path, err, w.Body)
		}
		return w, body
	}
	if w, _ := get("/api/health"); w.Code != 200 {
		t.Fatalf("health before start: %d %s", w.Code, w.Body)
	}
	for _, path := range []string{"/api/ready", "/api/projects"} {
		w, body := get(path)
		e, _ := body["error"].(map[string]any)
		if w.Code != http.StatusServiceUnavailable || e["code"] != "SERVICE_UNAVAILABLE" || e["message"] != "Starting" {
			t.Errorf("%s before start: %d %s", path, w.Code, w.Body)
		}
		if w.Header().Get("Content-Type") != "application/json; charset=utf-8" || w.Header().Get("Retry-After") == "" {
			t.Errorf("%s before start: headers %v, want JSON and Retry-After", path, w.Header())
		}
	}
}

// TestADrainingNodeSaysShuttingDownAndServesOn: from Drain on (the process
// is exiting) /api/ready answers 503 for the load balancer, while the
// node goes on serving every request until Caddy closes its listeners.
func TestADrainingNodeSaysShuttingDownAndServesOn(t *testing.T) {
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	s.Do("GET", "/api/ready", "", nil).Must(t, 200)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s.Svc.Drain(ctx)
	if !s.Svc.Draining() {
		t.Fatal("Draining is false after Drain")
	}
	r := s.Do("GET", "/api/ready", "", nil).Must(t, 503)
	if r.ErrorCode() != "SERVICE_UNAVAILABLE" || r.Message() != "Shutting down" {
		t.Fatalf("ready while draining: %s", r.Raw)
	}
	s.Do("GET", "/api/health", "", nil).Must(t, 200)
	s.API(p, "POST", "/notes", map[string]any{"body": "still served"}).Must(t, 201)
	s.Svc.Drain(ctx) // a second call does nothing
}
