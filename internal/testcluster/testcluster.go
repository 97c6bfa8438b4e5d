// Package testcluster runs a private PostgreSQL primary and a streaming
// replica for tests (issue 22): initdb on a free port, pg_basebackup -R
// for the replica, both started from the machine's server binaries (as
// the postgres user when the tests run as root, which PostgreSQL
// refuses), and torn down at the end of the package's tests. Without the
// binaries the tests that need it skip, unless
// TABLESMITH_TEST_REQUIRE_ALL=1 makes that a failure (CI).
package testcluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/lib/pq"
)

// Cluster is a running primary and replica.
type Cluster struct {
	bin         string
	dir         string
	owner       []string // runuser -u postgres -- when running as root
	uid, gid    int
	PrimaryPort int
	ReplicaPort int
}

// Database is the database the tests use on the cluster.
const Database = "tablesmith"

var (
	once     sync.Once
	shared   *Cluster
	startErr error
)

// Get returns the package's cluster, starting it on first use; it skips
// the test (or fails it under TABLESMITH_TEST_REQUIRE_ALL=1) when the
// server binaries are missing or the cluster cannot start.
func Get(t testing.TB) *Cluster {
	t.Helper()
	once.Do(func() { shared, startErr = Start() })
	if startErr != nil {
		msg := "a PostgreSQL primary and replica could not be started: " + startErr.Error()
		if os.Getenv("TABLESMITH_TEST_REQUIRE_ALL") == "1" {
			t.Fatal(msg + " (required by TABLESMITH_TEST_REQUIRE_ALL=1)")
		}
		t.Skip(msg)
	}
	return shared
}

// Main runs the package's tests and stops the cluster if one started.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the package's cluster if one started (for a TestMain that
// also needs testpg.Main).
func Stop() {
	if shared != nil {
		shared.Close()
	}
}

// ErrNoBinaries says the PostgreSQL server binaries are not installed.
var ErrNoBinaries = errors.New("the PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) are not installed (Debian/Ubuntu: apt-get install postgresql)")

// binDir finds the server binaries the way scripts/devdb.sh does: the
// newest /usr/lib/postgresql/*/bin, /usr/local/pgsql/bin, then PATH.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	dirs = append(dirs, "/usr/local/pgsql/bin")
	if p, err := exec.LookPath("initdb"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, d := range dirs {
		if executable(filepath.Join(d, "initdb")) && executable(filepath.Join(d, "pg_ctl")) && executable(filepath.Join(d, "pg_basebackup")) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

func versionOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Start initialises and starts a primary, then a replica streaming from it.
func Start() (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin, uid: -1, gid: -1}
	if os.Getuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, errors.New("running as root needs a 'postgres' user to run PostgreSQL as")
		}
		c.uid, _ = strconv.Atoi(u.Uid)
		c.gid, _ = strconv.Atoi(u.Gid)
		c.owner = []string{"runuser", "-u", "postgres", "--"}
	}
	if c.dir, err = os.MkdirTemp("", "tablesmith-cluster-"); err != nil {
		return nil, err
	}
	if err := c.chown(c.dir); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.start(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start() error {
	var err error
	if c.PrimaryPort, err = freePort(); err != nil {
		return err
	}
	if c.ReplicaPort, err = freePort(); err != nil {
		return err
	}
	primary, replica := c.dataDir("primary"), c.dataDir("replica")
	if err := c.run("initdb", "-D", primary, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync", "--no-instructions"); err != nil {
		return err
	}
	// Small and fast: the data is thrown away. fsync stays off, but
	// synchronous_commit keeps its default, which read-your-writes tests rely on.
	conf := "\nfsync = off\nfull_page_writes = off\nshared_buffers = 16MB\nmax_connections = 60\n" +
		"listen_addresses = '127.0.0.1'\nunix_socket_directories = '" + c.dir + "'\n" +
		"wal_receiver_status_interval = 1s\nhot_standby_feedback = on\n"
	if err := appendFile(filepath.Join(primary, "postgresql.conf"), conf); err != nil {
		return err
	}
	if err := c.pgctl(primary, c.PrimaryPort, "start"); err != nil {
		return err
	}
	if err := c.Exec(c.PrimaryURL("postgres"), "CREATE DATABASE "+Database); err != nil {
		return err
	}
	if err := c.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.PrimaryPort), "-U", "postgres",
		"-D", replica, "-R", "--checkpoint=fast", "--no-sync"); err != nil {
		return err
	}
	return c.StartReplica()
}

// PrimaryURL is the primary's URL of database db.
func (c *Cluster) PrimaryURL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.PrimaryPort, db)
}

// ReplicaURL is the replica's URL of database db.
func (c *Cluster) ReplicaURL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.ReplicaPort, db)
}

// StopReplica stops the replica at once (as a crash would).
func (c *Cluster) StopReplica() error {
	return c.run("pg_ctl", "-D", c.dataDir("replica"), "-m", "immediate", "-w", "stop")
}

// StartReplica starts the replica and waits until it accepts reads.
func (c *Cluster) StartReplica() error {
	if err := c.pgctl(c.dataDir("replica"), c.ReplicaPort, "start"); err != nil {
		return err
	}
	db, err := sql.Open("postgres", c.ReplicaURL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var in bool
		err := db.QueryRow(`SELECT pg_is_in_recovery()`).Scan(&in)
		if err == nil && in {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the replica did not accept reads within 30s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Exec runs a statement on the server and database of url.
func (c *Cluster) Exec(url, stmt string) error {
	db, err := sql.Open("postgres", url)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = db.ExecContext(ctx, stmt)
	return err
}

// Close stops both servers and removes their files.
func (c *Cluster) Close() {
	for _, name := range []string{"replica", "primary"} {
		d := c.dataDir(name)
		if _, err := os.Stat(filepath.Join(d, "postmaster.pid")); err == nil {
			_ = c.run("pg_ctl", "-D", d, "-m", "immediate", "-w", "stop")
		}
	}
	if c.dir != "" {
		_ = os.RemoveAll(c.dir)
	}
}

func (c *Cluster) dataDir(name string) string { return filepath.Join(c.dir, name) }

func (c *Cluster) pgctl(data string, port int, action string) error {
	return c.run("pg_ctl", "-D", data, "-l", data+".log", "-w", "-t", "60", "-o", "-p "+strconv.Itoa(port), action)
}

// run runs one of the server binaries, as the postgres user when root.
func (c *Cluster) run(name string, args ...string) error {
	argv := append(append([]string{}, c.owner...), filepath.Join(c.bin, name))
	argv = append(argv, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if log, rerr := os.ReadFile(c.dataDir("primary") + ".log"); rerr == nil && name == "pg_ctl" {
			msg += "\n" + tail(string(log), 800)
		}
		return fmt.Errorf("%s: %w: %s", name, err, msg)
	}
	return nil
}

func (c *Cluster) chown(p string) error {
	if c.uid < 0 {
		return nil
	}
	return os.Chown(p, c.uid, c.gid)
}

func appendFile(p, text string) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// freePort asks the kernel for a port that is free now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
