package caddymodule

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

func TestSetPlanCommandTakesPlansAndDatabaseFromTheConfigAndRefusesUnknownPlans(t *testing.T) {
	dbURL := testpg.NewDatabase(t)
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if err := store.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	st := &store.Store{DB: db}
	if _, err := st.CreateAccount(ctx, "ann@example.com", "Ann", "x", "free"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TABLESMITH_DATABASE_URL", "")
	t.Setenv("SET_PLAN_TEST_DB", dbURL)

	_, err = runSetPlan(ctx, setPlanOptions{Email: "ann@example.com", Plan: "team", DatabaseURL: dbURL})
	if err == nil || !strings.Contains(err.Error(), `unknown plan "team" (known: free, pro, unlimited)`) || !strings.Contains(err.Error(), "--config") {
		t.Fatalf("unknown plan without --config: %v", err)
	}

	config := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(config, []byte(`{
	tablesmith {
		database_url {env.SET_PLAN_TEST_DB}
		plan team {
			rate 5000/hour
			projects 5
		}
	}
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	msg, err := runSetPlan(ctx, setPlanOptions{Email: " Ann@Example.com ", Plan: "team", ConfigFile: config})
	if err != nil {
		t.Fatal(err)
	}
	if want := "ann@example.com: plan free → team (5000 generated-API requests per hour per project, 5 projects)"; msg != want {
		t.Fatalf("output %q, want %q", msg, want)
	}
	if acc, _ := st.AccountByEmail(ctx, "ann@example.com"); acc.Plan != "team" {
		t.Fatalf("plan in the database = %q, want team", acc.Plan)
	}

	if _, err := runSetPlan(ctx, setPlanOptions{Email: "nobody@example.com", Plan: "pro", DatabaseURL: dbURL}); err == nil ||
		!strings.Contains(err.Error(), "no account with the e-mail nobody@example.com") {
		t.Fatalf("unknown e-mail: %v", err)
	}
	if _, err := runSetPlan(ctx, setPlanOptions{Email: "ann@example.com", Plan: "pro"}); err == nil || !strings.Contains(err.Error(), "no database") {
		t.Fatalf("without a database: %v", err)
	}
}
