package caddymodule

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/store"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "tablesmith",
		Usage: "<subcommand>",
		Short: "Tablesmith operator commands (set-plan, schema apply, create-project, move-project)",
		Long: `
Operator commands for Tablesmith. They work on the PostgreSQL database
named by --database-url or TABLESMITH_DATABASE_URL.`,
		CobraFunc: func(cmd *cobra.Command) {
			setPlan := &cobra.Command{
				Use:   "set-plan <email> <plan>",
				Short: "Moves an account to another plan",
				Long: `
Moves the account with this e-mail to another plan. Running Caddy nodes
apply the new rate limit to the account's projects at their next request
(the change is announced with NOTIFY on tablesmith_events); requests
already counted in the current window still count.

The plan must be one of the default plans (free, pro, unlimited) or one
defined by a plan block in the config given with --config.`,
				Example: "caddy tablesmith set-plan ann@example.com pro",
				Args:    cobra.ExactArgs(2),
				RunE: func(c *cobra.Command, args []string) error {
					dbURL, _ := c.Flags().GetString("database-url")
					config, _ := c.Flags().GetString("config")
					adapter, _ := c.Flags().GetString("adapter")
					msg, err := runSetPlan(c.Context(), setPlanOptions{
						Email: args[0], Plan: args[1], DatabaseURL: dbURL, ConfigFile: config, Adapter: adapter,
					})
					if err != nil {
						return err
					}
					fmt.Fprintln(c.OutOrStdout(), msg)
					return nil
				},
			}
			setPlan.Flags().String("database-url", "", "PostgreSQL URL of the Tablesmith database (default: $TABLESMITH_DATABASE_URL)")
			setPlan.Flags().StringP("config", "c", "", "Caddy config whose tablesmith block defines the plans (and database_url)")
			setPlan.Flags().StringP("adapter", "a", "", "Name of the adapter of --config (default: caddyfile for Caddyfiles)")
			cmd.AddCommand(setPlan)
			cmd.AddCommand(schemaApplyCommand())   // schema_command.go
			cmd.AddCommand(moveProjectCommand())   // move_command.go
			cmd.AddCommand(createProjectCommand()) // move_command.go
		},
	})
}

// setPlanOptions are the inputs of `caddy tablesmith set-plan`.
type setPlanOptions struct {
	Email, Plan string
	DatabaseURL string
	ConfigFile  string
	Adapter     string
}

// runSetPlan changes an account's plan and returns what to print.
func runSetPlan(ctx context.Context, o setPlanOptions) (string, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	set := plans.Defaults()
	var fromConfig *App
	if o.ConfigFile != "" {
		app, err := tablesmithBlockOf(o.ConfigFile, o.Adapter)
		if err != nil {
			return "", err
		}
		fromConfig = app
		set = app.planSet()
	}
	plan, ok := set[o.Plan]
	if !ok {
		names := make([]string, 0, len(set))
		for n := range set {
			names = append(names, n)
		}
		slices.Sort(names)
		hint := ""
		if o.ConfigFile == "" {
			hint = "; for plans defined in a Caddyfile, pass it with --config"
		}
		return "", fmt.Errorf("unknown plan %q (known: %s)%s", o.Plan, strings.Join(names, ", "), hint)
	}
	dbURL := o.DatabaseURL
	if dbURL == "" {
		dbURL = os.Getenv("TABLESMITH_DATABASE_URL")
	}
	if dbURL == "" && fromConfig != nil {
		dbURL = caddy.NewReplacer().ReplaceKnown(fromConfig.DatabaseURL, "")
	}
	if dbURL == "" {
		return "", errors.New("no database: pass --database-url or set TABLESMITH_DATABASE_URL")
	}
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return "", fmt.Errorf("database URL: %w", err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	prev, err := plans.ChangePlan(ctx, db, o.Email, o.Plan)
	if errors.Is(err, store.ErrNotFound) {
		return "", fmt.Errorf("no account with the e-mail %s", o.Email)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: plan %s → %s (%s generated-API requests per hour per project, %s projects)",
		prev.Email, prev.Plan, o.Plan, limitText(plan.RatePerHour), limitText(int64(plan.Projects))), nil
}

func limitText(n int64) string {
	if n < 0 {
		return "unlimited"
	}
	return fmt.Sprint(n)
}

// tablesmithBlockOf adapts a config file and returns its tablesmith app,
// checked as Validate checks it.
func tablesmithBlockOf(file, adapter string) (*App, error) {
	raw, _, _, err := caddycmd.LoadConfig(file, adapter)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	var cfg struct {
		Apps struct {
			Tablesmith *App `json:"tablesmith"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	if cfg.Apps.Tablesmith == nil {
		return nil, fmt.Errorf("%s has no tablesmith block", file)
	}
	// The bounds a load would check, so a command never runs on values
	// the server would refuse.
	if err := cfg.Apps.Tablesmith.Validate(); err != nil {
		return nil, fmt.Errorf("%s: tablesmith: %w", file, err)
	}
	return cfg.Apps.Tablesmith, nil
}
