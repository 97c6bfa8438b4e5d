package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a server the driver started; stop ends it (and only it).
type process struct {
	name string
	cmd  *exec.Cmd
	log  string // file with its stderr (and stdout after the first lines)
	done chan struct{}
}

// start runs a command with its output going to logDir/<name>.log, and
// returns the first lines of stdout that match (e.g. "listening ...").
func start(name, logDir string, env []string, wantLines int, bin string, args ...string) (*process, []string, error) {
	logPath := logDir + "/" + name + ".log"
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = lf
	// Its own process group, so a Ctrl-C of the driver does not reach it
	// before the driver has stopped it in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out io.ReadCloser
	if wantLines > 0 {
		if out, err = cmd.StdoutPipe(); err != nil {
			return nil, nil, err
		}
	} else {
		cmd.Stdout = lf
	}
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, nil, err
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		lf.Close()
		close(p.done)
	}()
	var lines []string
	if wantLines > 0 {
		got := make(chan []string, 1)
		go func() {
			sc := bufio.NewScanner(out)
			var ls []string
			for len(ls) < wantLines && sc.Scan() {
				ls = append(ls, sc.Text())
			}
			got <- ls
			_, _ = io.Copy(lf, out)
		}()
		select {
		case lines = <-got:
		case <-time.After(2 * time.Minute):
		case <-p.done:
		}
		if len(lines) < wantLines {
			p.stop()
			return nil, nil, fmt.Errorf("%s did not start; see %s:\n%s", name, logPath, tail(logPath))
		}
	}
	return p, lines, nil
}

// stop sends SIGTERM, waits up to 10 s, then SIGKILL.
func (p *process) stop() {
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// memory reads VmHWM (peak resident set) and VmRSS of a process, in KiB.
func memory(pid int) (peak, now int64) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			peak = n
		case "VmRSS:":
			now = n
		}
	}
	return peak, now
}

// freeAddr returns a loopback address with a port that was free just now.
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitHTTP polls url until it answers with want or the time is up.
func waitHTTP(url string, want int, p *process, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("%s exited; see %s:\n%s", p.name, p.log, tail(p.log))
		default:
		}
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == want {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s: no %d from %s within %s; see %s:\n%s", p.name, want, url, limit, p.log, tail(p.log))
}

// tail returns the last lines of a log file.
func tail(path string) string {
	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
