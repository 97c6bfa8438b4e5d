package webhooks

import (
	"testing"
	"time"
)

func TestBackoffDoublesFromFiveSecondsWithJitterAndNeverWaitsPastAMinute(t *testing.T) {
	for range 200 { // the jitter is random: many draws of each
		for attempts, want := range map[int][2]time.Duration{
			1: {4 * time.Second, 6 * time.Second},
			2: {8 * time.Second, 12 * time.Second},
			3: {16 * time.Second, 24 * time.Second},
			// 40 s ± 20 %, cut at the minute.
			4: {32 * time.Second, time.Minute},
			// Long past the cap: a receiver back after a 10-minute outage
			// is tried again within a minute.
			8:  {48 * time.Second, time.Minute},
			30: {48 * time.Second, time.Minute},
		} {
			if d := Backoff(attempts); d < want[0] || d > want[1] {
				t.Fatalf("Backoff(%d) = %v, want within %v", attempts, d, want)
			}
		}
	}
}
