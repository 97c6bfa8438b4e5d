package platformhttp_test

import (
	"bytes"
	"database/sql"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/platformhttp"
	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

func TestAnInternalErrorIsLoggedOnceAndAnsweredWithoutItsText(t *testing.T) {
	db, err := sql.Open("postgres", testpg.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	db.Close() // every query now fails with "sql: database is closed"
	var logs bytes.Buffer
	h := platformhttp.New(platformhttp.Deps{Store: &store.Store{DB: db}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	r := httptest.NewRequest("POST", "/api/auth/login", strings.NewReader(`{"email":"a@example.com","password":"longpassword"}`))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusInternalServerError || !strings.Contains(w.Body.String(), `"code":"INTERNAL_ERROR"`) ||
		strings.Contains(w.Body.String(), "closed") {
		t.Fatalf("answer %d %s", w.Code, w.Body)
	}
	if n := strings.Count(logs.String(), "platform API request failed"); n != 1 || !strings.Contains(logs.String(), "database is closed") {
		t.Fatalf("logged %d times: %s", n, logs.String())
	}
}
