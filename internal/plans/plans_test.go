package plans

import (
	"testing"
	"time"
)

func TestDefaultPlansBoundEachStatementByThePlan(t *testing.T) {
	set := Defaults()
	for name, want := range map[string]time.Duration{"free": 5 * time.Second, "pro": 15 * time.Second, "unlimited": 30 * time.Second} {
		if got := set[name].StatementTimeout; got != want {
			t.Errorf("%s: statement timeout %v, want %v", name, got, want)
		}
	}
	if got := set.Get("gone", "also gone").StatementTimeout; got != 5*time.Second {
		t.Errorf("an unknown plan without a fallback: statement timeout %v, want the free plan's 5s", got)
	}
}

func TestDefaultPlansCapRealtimeStreams(t *testing.T) {
	set := Defaults()
	for name, want := range map[string]int{"free": 5, "pro": 1000, "unlimited": Unlimited} {
		if got := set[name].RealtimeStreams; got != want {
			t.Errorf("%s: realtime streams %d, want %d", name, got, want)
		}
	}
}
