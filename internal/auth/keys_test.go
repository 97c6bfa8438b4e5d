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
	}
	verify := func() {
		t.Helper()
		if _, err := k.Verify(context.Background(), key, now); err != nil {
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
	if _, err := k.Verify(context.Background(), key[:len(key)-1]+"b", time.Now()); err == nil {
		t.Fatal("a key with the right prefix and a wrong secret was accepted")
	}
}

// A key revoked while its record was being read is not cached: the next
// verification reads it again and sees the revocation.
func TestKeysDoNotCacheALookupThatAForgetOvertook(t *testing.T) {
	key, prefix := NewAPIKey(func(n int) string { return strings.Repeat("c", n) })
	revoked := false
	lookups := 0
	var k *Keys
	k = &Keys{
		Lookup: func(_ context.Context, p string) (KeyRecord, error) {
			lookups++
			rec := KeyRecord{ID: "k1", Prefix: prefix, Hash: HashAPIKey(key), Revoked: revoked}
			if lookups == 1 {
				revoked = true // the revoke commits and notifies while this read is under way
				k.Forget(prefix)
			}
			return rec, nil
		},
	}
	if _, err := k.Verify(context.Background(), key, time.Now()); err != nil {
		t.Fatalf("first verification (read before the revoke): %v", err)
	}
	if _, err := k.Verify(context.Background(), key, time.Now()); err == nil || lookups != 2 {
		t.Fatalf("after the revoke: err %v after %d lookups, want rejected after a second lookup", err, lookups)
	}
	if _, err := k.Verify(context.Background(), key, time.Now()); err == nil || lookups != 2 {
		t.Fatalf("the revoked record is not cached: err %v, %d lookups", err, lookups)
	}
}
