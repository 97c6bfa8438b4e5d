package main

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// pgbenchTPS runs a script of bench/pgbench/ with pgbench on the benchmark
// database, prepared statements and 32 clients on 2 threads, as issue 18
// measured its ceiling: what PostgreSQL alone serves, with no HTTP at all.
// The project's schema is on search_path, and -D users=<n> sizes the
// random ids.
func pgbenchTPS(dbURL, schemaName, script string, users, clients int, d time.Duration) (float64, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return 0, err
	}
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(2, clients)),
		"-T", strconv.Itoa(max(1, int(d.Seconds()))), "-D", "users=" + strconv.Itoa(users), "-f", "bench/pgbench/" + script, u.String()}
	cmd := exec.Command("pgbench", args...)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+schemaName)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("pgbench %s: %w\n%s", script, err, out)
	}
	return parsePgbench(string(out))
}

// parsePgbench reads the tps of pgbench's report ("tps = 40703.1 (without
// initial connection time)") and fails when a transaction failed.
func parsePgbench(out string) (float64, error) {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 5 && f[0] == "number" && f[2] == "failed" {
			if n, _ := strconv.Atoi(f[4]); n > 0 {
				return 0, fmt.Errorf("pgbench: %s", strings.TrimSpace(line))
			}
		}
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "tps = "); ok {
			f := strings.Fields(rest)
			return strconv.ParseFloat(f[0], 64)
		}
	}
	return 0, fmt.Errorf("pgbench: no tps in its report:\n%s", out)
}
