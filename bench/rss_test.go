//go:build bench

package bench

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// rssSampler samples the process's resident set (VmRSS) every 20 ms:
// the peak a transfer reached, against where it began.
type rssSampler struct {
	peak atomic.Int64
	base int64
	done chan struct{}
	wg   sync.WaitGroup
}

func startRSSSampler() *rssSampler {
	s := &rssSampler{base: readRSS(), done: make(chan struct{})}
	s.peak.Store(s.base)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-tick.C:
				if v := readRSS(); v > s.peak.Load() {
					s.peak.Store(v)
				}
			}
		}
	}()
	return s
}

func (s *rssSampler) stop() (base, peak int64) {
	close(s.done)
	s.wg.Wait()
	return s.base, s.peak.Load()
}

// readRSS is this process's VmRSS in bytes.
func readRSS() int64 { return statusBytes("self", "VmRSS:") }

// statusBytes reads one of the memory lines of /proc/<pid>/status
// (VmRSS:, VmHWM:, RssAnon:) in bytes; 0 when it cannot.
func statusBytes(pid, field string) int64 {
	raw, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
