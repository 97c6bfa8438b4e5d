package service

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestGenerateAndProjectDeletionGetTheLongerSchemaDeadline(t *testing.T) {
	const req = 10 * time.Second
	cases := []struct {
		method, path string
		want         time.Duration
	}{
		{"POST", "/api/projects/abc/generate", SchemaWorkTimeout},
		{"DELETE", "/api/projects/abc", SchemaWorkTimeout},
		{"DELETE", "/api/projects/abc/", SchemaWorkTimeout},
		{"GET", "/api/projects/abc/generate", req},
		{"DELETE", "/api/projects/abc/keys/k1", req},
		{"POST", "/api/projects//generate", req},
		{"GET", "/api/projects", req},
		{"POST", "/api/auth/login", req},
		{"PUT", "/api/projects/abc/schema", req},
	}
	for _, c := range cases {
		if got := platformDeadline(httptest.NewRequest(c.method, c.path, nil), req); got != c.want {
			t.Errorf("%s %s: deadline %v, want %v", c.method, c.path, got, c.want)
		}
	}
	if got := platformDeadline(httptest.NewRequest("GET", "/api/projects", nil), 10*time.Minute); got != 10*time.Minute {
		t.Errorf("a request timeout above the schema deadline is kept, got %v", got)
	}
}
