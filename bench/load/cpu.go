package main

import (
	"database/sql"
	"os"
	"strconv"
	"strings"
	"time"
)

// CPU accounting. Throughput on a shared two-core machine moves with
// whatever else runs on it; the CPU time a server spends per request
// hardly does. So every run also reads, from /proc, the CPU time of the
// server under test, of the PostgreSQL backends of the benchmark database,
// of the driver itself, and of the whole machine: what is left is other
// work, reported so that a noisy run can be recognised.

// clockTick is the unit of /proc CPU times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// cpuUse is CPU time spent during a run.
type cpuUse struct {
	server, postgres, driver, others time.Duration
}

func (c cpuUse) add(d cpuUse) cpuUse {
	return cpuUse{c.server + d.server, c.postgres + d.postgres, c.driver + d.driver, c.others + d.others}
}

// cpuMeter takes the snapshots of one run.
type cpuMeter struct {
	db                      *sql.DB
	pid                     int
	app                     string
	server, driver, machine int64
	postgres                map[int]int64
}

// startCPU starts measuring; app, when not empty, limits the PostgreSQL
// time to the backends of connections with that application_name.
func startCPU(db *sql.DB, serverPid int, app string) *cpuMeter {
	m := &cpuMeter{db: db, pid: serverPid, app: app}
	m.server, m.driver, m.machine = procTicks(serverPid), procTicks(os.Getpid()), machineTicks()
	m.postgres = backendTicks(db, app)
	return m
}

func (m *cpuMeter) stop() cpuUse {
	server, driver, machine := procTicks(m.pid), procTicks(os.Getpid()), machineTicks()
	var pg int64
	for pid, t := range backendTicks(m.db, m.app) {
		pg += t - m.postgres[pid] // a backend started during the run counts whole
	}
	u := cpuUse{
		server:   time.Duration(server-m.server) * clockTick,
		postgres: time.Duration(pg) * clockTick,
		driver:   time.Duration(driver-m.driver) * clockTick,
	}
	u.others = time.Duration(machine-m.machine)*clockTick - u.server - u.postgres - u.driver
	return u
}

// procTicks is a process's user+system CPU time in clock ticks.
func procTicks(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}

// machineTicks is the busy time of all CPUs in clock ticks.
func machineTicks() int64 {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	var busy int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 8 { // guest times are already in user
			break
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	return busy
}

// backendTicks reads the CPU time of every backend of the benchmark
// database except the driver's own; with app, only of those whose
// connection has that application_name.
func backendTicks(db *sql.DB, app string) map[int]int64 {
	out := map[int]int64{}
	if db == nil {
		return out
	}
	rows, err := db.Query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
		AND ($1 = '' OR application_name = $1)`, app)
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if rows.Scan(&pid) == nil {
			out[pid] = procTicks(pid)
		}
	}
	return out
}

// perRequest formats CPU time per request in microseconds.
func perRequest(d time.Duration, requests int) string {
	if requests == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(d.Microseconds())/float64(requests), 'f', 0, 64)
}
