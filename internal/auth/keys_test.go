package auth

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A key's last use is recorded to the second, and recorded again after
// the background writer took the previous one.
func TestKeysRecordLastUseToTheSecond(t *testing.T) {
	key, prefix := NewAPIKey(func(n int) string { return strings.Repeat("a", n) })
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	k := &Keys{
		Lookup: func(_ context.Context, p string) (KeyRecord, error) {
			if p != prefix {
				return KeyRecord{}, ErrUnknownKey
			}
			return KeyRecord{ID: "k1", Prefix: prefix, Hash: HashAPIKey(key)}, nil
		},
		Now: func() time.Time { return now },
	}
	verify := func() {
		t.Helper()
		if _, err := k.Verify(context.Background(), key); err != nil {
			t.Fatal(err)
		}
	}
	verify()
	now = now.Add(500 * time.Millisecond)
	verify()
	if used := k.TakeUsed(); !used[prefix].Equal(now.Add(-500 * time.Millisecond)) {
		t.Fatalf("last use %v, want the first use (the second came within the second)", used[prefix])
	}
	verify() // after TakeUsed, the next use is recorded at once
	if used := k.TakeUsed(); !used[prefix].Equal(now) {
		t.Fatalf("last use after a take %v, want %v", used[prefix], now)
	}
	verify()
	now = now.Add(1500 * time.Millisecond)
	verify()
	if used := k.TakeUsed(); !used[prefix].Equal(now) {
		t.Fatalf("last use %v, want %v (more than a second later)", used[prefix], now)
	}
	if _, err := k.Verify(context.Background(), key[:len(key)-1]+"b"); err == nil {
		t.Fatal("a key with the right prefix and a wrong secret was accepted")
	}
}
