// Package testpg gives test packages a throwaway PostgreSQL database on
// the server named by TABLESMITH_TEST_DATABASE_URL (default: the local
// service). Without a server the tests skip, unless
// TABLESMITH_TEST_REQUIRE_ALL=1 makes that a failure (CI).
package testpg

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/lib/pq"

	"github.com/tablesmith/tablesmith/internal/store"
)

// DefaultURL is the local PostgreSQL of the development machines.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// ServerURL is the maintenance database URL of the test server.
func ServerURL() string {
	if u := os.Getenv("TABLESMITH_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// RequireAll reports whether missing services must fail the tests.
func RequireAll() bool { return os.Getenv("TABLESMITH_TEST_REQUIRE_ALL") == "1" }

var dbURL string

// URL is the package's throwaway database, set up by Main.
func URL(t testing.TB) string {
	t.Helper()
	if dbURL == "" {
		if RequireAll() {
			t.Fatal("PostgreSQL is required (TABLESMITH_TEST_REQUIRE_ALL=1) but not reachable at " + redact(ServerURL()))
		}
		t.Skip("PostgreSQL not reachable at " + redact(ServerURL()) + "; set TABLESMITH_TEST_DATABASE_URL")
	}
	return dbURL
}

// Main creates a database named after the package for the duration of
// m.Run and drops it afterwards; then runs after (e.g. testcluster.Stop).
func Main(m *testing.M, name string, after ...func()) {
	code := run(m, name)
	for _, f := range after {
		f()
	}
	os.Exit(code)
}

func run(m *testing.M, name string) int {
	admin, err := sql.Open("postgres", ServerURL())
	if err != nil {
		return fail(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		if RequireAll() {
			return fail(fmt.Errorf("PostgreSQL is required but not reachable: %w", err))
		}
		fmt.Fprintf(os.Stderr, "testpg: PostgreSQL not reachable (%v): database tests skip\n", err)
		return m.Run()
	}
	db := "ts_test_" + name + "_" + store.RandomID(6)
	if _, err := admin.Exec(`CREATE DATABASE ` + db); err != nil {
		return fail(err)
	}
	defer func() {
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + db + ` WITH (FORCE)`)
	}()
	dbURL = withDatabase(ServerURL(), db)
	return m.Run()
}

// NewDatabase creates one more throwaway database for a single test
// (e.g. a restart test) and drops it at the end of the test.
func NewDatabase(t testing.TB) string {
	t.Helper()
	URL(t)
	admin, err := sql.Open("postgres", ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	db := "ts_test_x_" + store.RandomID(8)
	if _, err := admin.Exec(`CREATE DATABASE ` + db); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + db + ` WITH (FORCE)`)
		admin.Close()
	})
	return withDatabase(ServerURL(), db)
}

func withDatabase(server, db string) string {
	u, err := url.Parse(server)
	if err != nil {
		return server
	}
	u.Path = "/" + db
	return u.String()
}

func redact(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Redacted()
	}
	return strings.SplitN(u, "@", 2)[len(strings.SplitN(u, "@", 2))-1]
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "testpg:", err)
	return 1
}
