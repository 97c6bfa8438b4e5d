package edgecache

import (
	"reflect"
	"testing"
)

func TestTheHeaderNamesTheProjectAndEveryTableRead(t *testing.T) {
	got := Header("1a2b3c4d5e6f", []string{"posts", "users"})
	if want := "ts_1a2b3c4d5e6f, ts_1a2b3c4d5e6f_posts, ts_1a2b3c4d5e6f_users"; got != want {
		t.Errorf("Header = %q, want %q", got, want)
	}
}

func TestKeysOfNoTablesAreTheWholeProject(t *testing.T) {
	if got := Keys("1a2b3c4d5e6f", nil); !reflect.DeepEqual(got, []string{"ts_1a2b3c4d5e6f"}) {
		t.Errorf("Keys(nil) = %q", got)
	}
	if got := Keys("1a2b3c4d5e6f", []string{"a", "b"}); !reflect.DeepEqual(got, []string{"ts_1a2b3c4d5e6f_a", "ts_1a2b3c4d5e6f_b"}) {
		t.Errorf("Keys(a, b) = %q", got)
	}
}

type namedPurger struct{ name string }

func (*namedPurger) Purge(string, []string) {}
func (*namedPurger) PurgeAll()              {}

func TestAnOldConfigsClearLeavesTheNewPurgerInPlace(t *testing.T) {
	var s Slot
	old, cur := &namedPurger{"old"}, &namedPurger{"new"}
	s.Set(old)
	s.Set(cur) // the reloaded config starts first
	s.Clear(old)
	if s.Get() != cur {
		t.Fatalf("after the old config stopped the slot holds %v, want the new purger", s.Get())
	}
	s.Clear(cur)
	if s.Get() != nil {
		t.Fatalf("after the last config stopped the slot holds %v", s.Get())
	}
}
