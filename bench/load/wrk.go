package main

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// wrk loads a target with the wrk HTTP benchmark (the tool issue 18
// measured with), when it is on PATH: Lua scripts under bench/wrk/ make
// the random ids and the POST bodies; fixed paths need none.

// wrkRun is what one wrk run reported.
type wrkRun struct {
	requests int
	elapsed  time.Duration
	p50, p99 time.Duration
	// errors counts non-2xx/3xx answers and socket errors.
	errors int
}

// wrkArgs is the command line of one run of s against t: threads, conns,
// duration, the latency distribution, the key, and the script or path.
func wrkArgs(t target, s *scenario, users, conns int, d time.Duration) []string {
	threads := min(2, conns)
	args := []string{"-t", strconv.Itoa(threads), "-c", strconv.Itoa(conns), "-d", fmt.Sprintf("%ds", max(1, int(d.Seconds()))), "--latency"}
	if t.key != "" {
		args = append(args, "-H", "Authorization: Bearer "+t.key)
	}
	if s.wrk != "" {
		args = append(args, "-s", "bench/wrk/"+s.wrk, "http://"+t.addr, "--", t.prefix, strconv.Itoa(users))
		return append(args, s.wrkArgs...)
	}
	return append(args, "http://"+t.addr+t.prefix+s.path(nil, 0))
}

// runWrk runs wrk and returns its report and its own CPU time.
func runWrk(args []string) (wrkRun, time.Duration, error) {
	cmd := exec.Command("wrk", args...)
	out, err := cmd.CombinedOutput()
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return wrkRun{}, cpu, fmt.Errorf("wrk %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	r, err := parseWrk(string(out))
	return r, cpu, err
}

// parseWrk reads the parts of wrk's --latency report the benchmark uses.
func parseWrk(out string) (wrkRun, error) {
	var r wrkRun
	sc := bufio.NewScanner(strings.NewReader(out))
	seen := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "50%":
			r.p50, _ = wrkDuration(f[1])
		case len(f) == 2 && f[0] == "99%":
			r.p99, _ = wrkDuration(f[1])
		case len(f) >= 4 && f[1] == "requests" && f[2] == "in":
			n, err := strconv.Atoi(f[0])
			if err != nil {
				return r, fmt.Errorf("wrk: requests %q", f[0])
			}
			d, err := wrkDuration(strings.TrimSuffix(f[3], ","))
			if err != nil {
				return r, err
			}
			r.requests, r.elapsed, seen = n, d, true
		case len(f) == 5 && f[0] == "Non-2xx":
			n, _ := strconv.Atoi(f[4])
			r.errors += n
		case len(f) >= 2 && f[0] == "Socket" && f[1] == "errors:":
			// Socket errors: connect 0, read 0, write 0, timeout 0
			for i := 3; i < len(f); i += 2 {
				n, _ := strconv.Atoi(strings.TrimSuffix(f[i], ","))
				r.errors += n
			}
		}
	}
	if !seen {
		return r, errors.New("wrk: no \"requests in\" line in its report")
	}
	return r, nil
}

// wrkDuration parses wrk's durations: 312.00us, 1.25ms, 10.00s, 1.02m.
func wrkDuration(s string) (time.Duration, error) {
	for _, u := range []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return 0, fmt.Errorf("wrk: duration %q", s)
			}
			return time.Duration(f * float64(u.unit)), nil
		}
	}
	return 0, fmt.Errorf("wrk: duration %q", s)
}
