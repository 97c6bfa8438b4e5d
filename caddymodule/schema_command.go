package caddymodule

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tablesmith/tablesmith/internal/publish"
	"github.com/tablesmith/tablesmith/internal/store"
)

// schemaApplyCommand is `caddy tablesmith schema apply`: it saves a
// schema.json file as a project's draft and generates it through the
// same code as POST /api/projects/{id}/generate (internal/publish), so a
// script or CI job gets the same plan, checks and refusals as the
// dashboard. command.go adds it under `caddy tablesmith`.
func schemaApplyCommand() *cobra.Command {
	schemaCmd := &cobra.Command{
		Use:   "schema",
		Short: "Works with a project's schema document",
	}
	var projectID, dbURL, config, adapter string
	var confirm, dryRun bool
	apply := &cobra.Command{
		Use:   "apply --project ID [--confirm-destructive] [--dry-run] FILE",
		Short: "Saves a schema file as a project's draft and generates it",
		Long: `
Saves FILE (a schema document, as GET /api/projects/{id}/schema/export
downloads it; - reads standard input) as the project's draft and
generates it: the database is migrated in one transaction and a new
version is published, exactly as the dashboard's Generate does.

A change that would lose data (a dropped table or column, a narrowing
type change) is refused unless --confirm-destructive is given. Rows that
a new constraint or type would not accept are reported with their count
and example ids, and nothing changes. --dry-run prints the plan with its
SQL and what the checks of existing rows find, and saves nothing.

The database is the one named by --database-url or
TABLESMITH_DATABASE_URL. Running Caddy nodes pick up the new version at
once (NOTIFY on tablesmith_events). The exit status is 0 on success,
1 when the generate was refused or failed.`,
		Example: "caddy tablesmith schema apply --project dc4ifrj1tzs7 schema.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if projectID == "" {
				return errors.New("--project is required")
			}
			var file []byte
			var err error
			if args[0] == "-" {
				file, err = io.ReadAll(c.InOrStdin())
			} else {
				file, err = os.ReadFile(args[0])
			}
			if err != nil {
				return fmt.Errorf("read schema file: %w", err)
			}
			ctx, op, err := operatorFor(c, dbURL, config, adapter)
			if err != nil {
				return err
			}
			defer op.Close()
			st := op.Store
			opt := publish.Options{ConfirmDestructive: confirm, Trigram: store.TrigramAvailable(ctx, st.DB)}
			res, plan, err := publish.Apply(ctx, st, projectID, file, dryRun, opt)
			if err != nil {
				c.SilenceUsage = true
				fmt.Fprint(c.ErrOrStderr(), publish.DescribeError(err))
				return errors.New("schema not applied")
			}
			if plan != nil {
				fmt.Fprint(c.OutOrStdout(), plan.Describe())
				return nil
			}
			fmt.Fprint(c.OutOrStdout(), publish.Describe(res))
			return nil
		},
	}
	apply.Flags().StringVar(&projectID, "project", "", "id of the project (required)")
	apply.Flags().StringVar(&dbURL, "database-url", "", "PostgreSQL URL of the Tablesmith database (default: $TABLESMITH_DATABASE_URL)")
	apply.Flags().StringVarP(&config, "config", "c", "", "Caddy config whose tablesmith block names the data servers (needed for projects on one)")
	apply.Flags().StringVarP(&adapter, "adapter", "a", "", "Name of the adapter of --config (default: caddyfile for Caddyfiles)")
	apply.Flags().BoolVar(&confirm, "confirm-destructive", false, "apply changes that drop tables or columns or narrow types")
	apply.Flags().BoolVar(&dryRun, "dry-run", false, "print the plan and what the checks of existing rows find; change nothing")
	schemaCmd.AddCommand(apply)
	return schemaCmd
}
