package caddymodule

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/spf13/cobra"

	"github.com/tablesmith/tablesmith/internal/move"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/store"
)

// moveProjectCommand is `caddy tablesmith move-project`: it moves a
// managed project's tables to another data server (internal/move).
func moveProjectCommand() *cobra.Command {
	var projectID, to, dbURL, config, adapter string
	var confirm, resume bool
	cmd := &cobra.Command{
		Use:   "move-project --project ID (--to SERVER | --confirm | --resume-writes) --config Caddyfile",
		Short: "Moves a project's tables to another data server",
		Long: `
Moves a managed project's tables to another data server (a data_server
block of the config given with --config, or "default" for database_url).

Every node is told to pause the project's writes (they answer 503 with
Retry-After: 2) while its reads go on from the old copy. The move waits
for writes in flight, creates the tables on the new server from the
published version, copies the rows in one consistent view, checks that
every table has as many rows on both sides, waits for the new server's
replicas to replay the copy, and then switches every node to the new
server. Writes are paused for the time the copy takes.

The old copy stays on the old server, refusing writes, until the move is
confirmed with --confirm, which drops it. If anything fails before the
switch, the new copy is dropped and writes resume on the old one. A move
cut off by a crash leaves writes paused: --resume-writes ends the pause.`,
		Example: "caddy tablesmith move-project --project dc4ifrj1tzs7 --to east --config Caddyfile",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if projectID == "" {
				return errors.New("--project is required")
			}
			chosen := 0
			for _, on := range []bool{to != "", confirm, resume} {
				if on {
					chosen++
				}
			}
			if chosen != 1 {
				return errors.New("give exactly one of --to SERVER, --confirm, --resume-writes")
			}
			ctx, op, err := operatorFor(c, dbURL, config, adapter)
			if err != nil {
				return err
			}
			defer op.Close()
			out := c.OutOrStdout()
			switch {
			case confirm:
				n, err := move.Confirm(ctx, op.Store, projectID)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%s: dropped %d old copy(ies)\n", projectID, n)
			case resume:
				if err := move.ResumeWrites(ctx, op.Store, projectID); err != nil {
					return err
				}
				fmt.Fprintf(out, "%s: writes resumed\n", projectID)
			default:
				res, err := move.Project(ctx, op.Store, projectID, to, move.Options{
					ReplicaURLs: op.replicas[to],
					Log: func(format string, args ...any) {
						fmt.Fprintf(out, "%s  %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, args...))
					},
				})
				if err != nil {
					return fmt.Errorf("move %s to %s: %w", projectID, to, err)
				}
				var rows []string
				for t, n := range res.Rows {
					rows = append(rows, fmt.Sprintf("%s %d", t, n))
				}
				fmt.Fprintf(out, "%s moved from %s to %s; writes paused %s; rows: %s\n", projectID, res.From, res.To,
					res.Paused.Round(time.Millisecond), strings.Join(rows, ", "))
				fmt.Fprintf(out, "the old copy stays on %s until: caddy tablesmith move-project --project %s --confirm\n", res.From, projectID)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&projectID, "project", "", "Project id")
	cmd.Flags().StringVar(&to, "to", "", "Data server to move to (a data_server name, or default)")
	cmd.Flags().BoolVar(&confirm, "confirm", false, "Drop the old copy a move left")
	cmd.Flags().BoolVar(&resume, "resume-writes", false, "End the write pause of a move that died")
	cmd.Flags().StringVar(&dbURL, "database-url", "", "PostgreSQL URL of the Tablesmith database (default: $TABLESMITH_DATABASE_URL, then --config's)")
	cmd.Flags().StringVarP(&config, "config", "c", "", "Caddy config whose tablesmith block names the data servers")
	cmd.Flags().StringVarP(&adapter, "adapter", "a", "", "Name of the adapter of --config (default: caddyfile for Caddyfiles)")
	return cmd
}

// createProjectCommand is `caddy tablesmith create-project`: an
// operator creates a managed project for an account on a data server of
// their choice (the dashboard places it on the one with the fewest).
func createProjectCommand() *cobra.Command {
	var owner, name, server, dbURL, config, adapter string
	cmd := &cobra.Command{
		Use:   "create-project --owner EMAIL --name NAME [--data-server SERVER] --config Caddyfile",
		Short: "Creates a project for an account, on a chosen data server",
		Long: `
Creates a managed project owned by the account with this e-mail, with its
tables on the data server named by --data-server (a data_server block of
--config, or "default" for database_url). Without --data-server the
project goes where the dashboard would put it: the data server with the
fewest projects, or database_url when none is configured. The owner's
plan limit on projects does not apply to an operator. Prints the id.`,
		Example: "caddy tablesmith create-project --owner ann@example.com --name Shop --data-server east --config Caddyfile",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if owner == "" || name == "" {
				return errors.New("--owner and --name are required")
			}
			ctx, op, err := operatorFor(c, dbURL, config, adapter)
			if err != nil {
				return err
			}
			defer op.Close()
			acc, err := op.Store.AccountByEmail(ctx, owner)
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("no account with the e-mail %s", owner)
			}
			if err != nil {
				return err
			}
			if server == "" {
				server = op.fewest(ctx)
			}
			if _, err := op.Store.ServerOf(server); err != nil {
				return err
			}
			p, err := op.Store.CreateProject(ctx, acc.ID, name, store.EngineManaged, nil, nil, -1, server)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "%s\n", p.ID)
			return nil
		},
	}
	cmd.Flags().StringVar(&owner, "owner", "", "E-mail of the account that owns the project")
	cmd.Flags().StringVar(&name, "name", "", "Project name")
	cmd.Flags().StringVar(&server, "data-server", "", "Data server for its tables (a data_server name, or default)")
	cmd.Flags().StringVar(&dbURL, "database-url", "", "PostgreSQL URL of the Tablesmith database (default: $TABLESMITH_DATABASE_URL, then --config's)")
	cmd.Flags().StringVarP(&config, "config", "c", "", "Caddy config whose tablesmith block names the data servers")
	cmd.Flags().StringVarP(&adapter, "adapter", "a", "", "Name of the adapter of --config (default: caddyfile for Caddyfiles)")
	return cmd
}

// operator is what an operator command works on: the control schema and
// the data servers of the config.
type operator struct {
	Store    *store.Store
	pools    []*sql.DB
	replicas map[string][]string
	servers  []string // the config's data servers, by name
}

// fewest is the data server the dashboard would place a new project on:
// the config's with the fewest projects, else database_url.
func (o *operator) fewest(ctx context.Context) string {
	counts, err := o.Store.ServerCounts(ctx)
	best := store.DefaultServer
	if err != nil {
		return best
	}
	for i, n := range o.servers {
		if i == 0 || counts[n] < counts[best] {
			best = n
		}
	}
	return best
}

func (o *operator) Close() {
	for _, db := range o.pools {
		db.Close()
	}
}

// operatorFor is openOperator with the command's context.
func operatorFor(c *cobra.Command, dbURL, configFile, adapter string) (context.Context, *operator, error) {
	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	op, err := openOperator(ctx, dbURL, configFile, adapter)
	return ctx, op, err
}

// openOperator connects to the Tablesmith database (dbURL, else
// $TABLESMITH_DATABASE_URL, else the config's database_url) with the
// data servers of the config file, if one is given.
func openOperator(ctx context.Context, dbURL, configFile, adapter string) (*operator, error) {
	var servers []service.DataServer
	var fromConfig *App
	if configFile != "" {
		app, err := tablesmithBlockOf(configFile, adapter)
		if err != nil {
			return nil, err
		}
		fromConfig = app
		if servers, _, err = app.dataServers(caddy.NewReplacer()); err != nil {
			return nil, err
		}
	}
	if dbURL == "" {
		dbURL = os.Getenv("TABLESMITH_DATABASE_URL")
	}
	if dbURL == "" && fromConfig != nil {
		dbURL = caddy.NewReplacer().ReplaceKnown(fromConfig.DatabaseURL, "")
	}
	if dbURL == "" {
		return nil, errors.New("no database: pass --database-url, set TABLESMITH_DATABASE_URL or give --config")
	}
	db, err := sql.Open("postgres", dbURL)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	op := &operator{Store: &store.Store{DB: db}, pools: []*sql.DB{db}, replicas: map[string][]string{}}
	if err := db.PingContext(ctx); err != nil {
		op.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if fromConfig != nil {
		op.replicas[store.DefaultServer] = fromConfig.ReplicaURLs
	}
	byName := map[string]*sql.DB{}
	for _, ds := range servers {
		pool, err := sql.Open("postgres", ds.URL)
		if err != nil {
			op.Close()
			return nil, fmt.Errorf("data_server %s: %w", ds.Name, err)
		}
		op.pools = append(op.pools, pool)
		byName[ds.Name] = pool
		op.servers = append(op.servers, ds.Name)
		op.replicas[ds.Name] = ds.ReplicaURLs
	}
	sort.Strings(op.servers)
	migrated := map[string]bool{}
	op.Store.Servers = func(name string) (*sql.DB, error) {
		if db, ok := byName[name]; ok {
			// A data server no node has started with yet lacks the
			// tablesmith schema; migrating is idempotent.
			if !migrated[name] {
				if err := store.Migrate(ctx, db); err != nil {
					return nil, fmt.Errorf("data_server %s: %w", name, err)
				}
				migrated[name] = true
			}
			return db, nil
		}
		hint := ""
		if configFile == "" {
			hint = " (pass the Caddyfile that defines it with --config)"
		}
		return nil, fmt.Errorf("unknown data server %q%s", name, hint)
	}
	return op, nil
}
