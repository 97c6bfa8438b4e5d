package caddymodule

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/tablesmith/tablesmith/internal/store"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/schema"
)

// tablesmithDatabase is a fresh migrated Tablesmith database with the
// account ann@example.com on the free plan.
func tablesmithDatabase(t *testing.T) (string, *sql.DB, *store.Store) {
	t.Helper()
	dbURL := testpg.NewDatabase(t)
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	if err := store.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	st := &store.Store{DB: db}
	if _, err := st.CreateAccount(ctx, "ann@example.com", "Ann", "x", "free"); err != nil {
		t.Fatal(err)
	}
	return dbURL, db, st
}

func TestSetPlanCommandTakesPlansAndDatabaseFromTheConfigAndRefusesUnknownPlans(t *testing.T) {
	dbURL, _, st := tablesmithDatabase(t)
	ctx := context.Background()
	t.Setenv("TABLESMITH_DATABASE_URL", "")
	t.Setenv("SET_PLAN_TEST_DB", dbURL)

	_, err := runSetPlan(ctx, setPlanOptions{Email: "ann@example.com", Plan: "team", DatabaseURL: dbURL})
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

// TestOperatorCreatesAProjectOnANamedDataServerAndMovesIt: create-project
// places a project on the data server the operator names, move-project
// moves it (here before its first generate, which makes the move
// instant) and --confirm drops the old copy; the servers come from the
// Caddyfile given with --config.
func TestOperatorCreatesAProjectOnANamedDataServerAndMovesIt(t *testing.T) {
	control, db, _ := tablesmithDatabase(t)
	east := testpg.NewDatabase(t)
	ctx := context.Background()
	t.Setenv("TABLESMITH_DATABASE_URL", "")
	t.Setenv("OPERATOR_TEST_CONTROL", control)
	t.Setenv("OPERATOR_TEST_EAST", east)
	config := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(config, []byte("{\n\ttablesmith {\n\t\tdatabase_url {env.OPERATOR_TEST_CONTROL}\n\t\tdata_server east {\n\t\t\turl {env.OPERATOR_TEST_EAST}\n\t\t}\n\t}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(cmd *cobra.Command, args ...string) (string, error) {
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(args)
		err := cmd.ExecuteContext(ctx)
		return out.String(), err
	}
	placement := func(id string) string {
		var s sql.NullString
		if err := db.QueryRow(`SELECT data_server FROM tablesmith.projects WHERE id = $1`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s.String
	}

	out, err := run(createProjectCommand(), "--owner", "ann@example.com", "--name", "Shop", "--data-server", "east", "--config", config)
	if err != nil {
		t.Fatal(err, out)
	}
	id := strings.TrimSpace(out)
	if placement(id) != "east" {
		t.Fatalf("placed on %q", placement(id))
	}
	// schema apply reaches the data server through --config too.
	schemaFile := filepath.Join(t.TempDir(), "schema.json")
	if err := os.WriteFile(schemaFile, []byte(`{"tables": [{"name": "items", "columns": [{"name": "sku", "type": "text"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := run(schemaApplyCommand(), "apply", "--project", id, "--config", config, schemaFile); err != nil {
		t.Fatalf("schema apply: %v\n%s", err, out)
	}
	if out, err := run(createProjectCommand(), "--owner", "ann@example.com", "--name", "X", "--data-server", "north", "--config", config); err == nil ||
		!strings.Contains(err.Error(), `unknown data server "north"`) {
		t.Fatalf("an unknown server: %v %s", err, out)
	}
	if _, err := run(moveProjectCommand(), "--project", id, "--to", "default", "--confirm", "--config", config); err == nil ||
		!strings.Contains(err.Error(), "exactly one of") {
		t.Fatalf("--to with --confirm: %v", err)
	}
	out, err = run(moveProjectCommand(), "--project", id, "--to", "default", "--config", config)
	if err != nil || !strings.Contains(out, id+" moved from east to default") || !strings.Contains(out, "items 0") {
		t.Fatalf("move: %v\n%s", err, out)
	}
	if placement(id) != "" {
		t.Fatalf("after the move: %q", placement(id))
	}
	var schemas int
	eastDB, err := sql.Open("postgres", east)
	if err != nil {
		t.Fatal(err)
	}
	defer eastDB.Close()
	count := func() int {
		if err := eastDB.QueryRow(`SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema.ProjectSchema(id)).Scan(&schemas); err != nil {
			t.Fatal(err)
		}
		return schemas
	}
	if count() != 1 {
		t.Fatal("the old copy should stay on east until confirmed")
	}
	if out, err := run(moveProjectCommand(), "--project", id, "--confirm", "--config", config); err != nil || !strings.Contains(out, "dropped 1") {
		t.Fatalf("confirm: %v %s", err, out)
	}
	if count() != 0 {
		t.Fatal("the old copy is still on east")
	}
}
