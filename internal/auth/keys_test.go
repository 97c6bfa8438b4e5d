package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// lookups is a KeyLookup over a map of prefix → hash that counts its calls.
type lookups struct {
	mu     sync.Mutex
	hashes map[string][]byte
	calls  map[string]int
	during func(prefix string) // runs inside the lookup, before it answers
}

func (l *lookups) lookup(_ context.Context, prefix string) (KeyRecord, error) {
	l.mu.Lock()
	l.calls[prefix]++
	h, ok := l.hashes[prefix]
	during := l.during
	l.mu.Unlock()
	if during != nil {
		during(prefix)
	}
	if !ok {
		return KeyRecord{}, ErrUnknownKey
	}
	return KeyRecord{ID: "k-" + prefix, Prefix: prefix, Hash: h}, nil
}

func (l *lookups) create(key string) {
	l.mu.Lock()
	l.hashes[KeyPrefix(key)] = HashAPIKey(key)
	l.mu.Unlock()
}

func (l *lookups) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.calls[prefix]
}

func newLookups() *lookups { return &lookups{hashes: map[string][]byte{}, calls: map[string]int{}} }

func TestAnUnknownPrefixIsLookedUpOnceUntilAKeyWithItIsCreated(t *testing.T) {
	l := newLookups()
	k := &Keys{Lookup: l.lookup}
	key, prefix := NewAPIKey(func(n int) string { return strings.Repeat("u", n) })
	now := time.Now()
	for i := range 100 {
		// Other secrets with the same prefix are the same unknown prefix.
		try := key[:len(key)-2] + fmt.Sprintf("%02d", i)
		if _, err := k.Verify(context.Background(), try, now); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("an unknown key: err %v, want ErrInvalidToken", err)
		}
	}
	if n := l.count(prefix); n != 1 || k.Unknown() != 1 {
		t.Fatalf("100 tries of an unknown prefix: %d lookups, %d prefixes remembered; want 1 and 1", n, k.Unknown())
	}
	// The key is created (on any node: every node calls Forget).
	l.create(key)
	k.Forget(prefix)
	if _, err := k.Verify(context.Background(), key, now); err != nil {
		t.Fatalf("the key created after its prefix was unknown: %v", err)
	}
	if n := l.count(prefix); n != 2 {
		t.Errorf("%d lookups, want 2 (one more after the creation)", n)
	}
	// After UnknownTTL an unknown prefix is asked about again.
	other := "ts_zzzzzzzz_" + strings.Repeat("z", 32)
	_, _ = k.Verify(context.Background(), other, now)
	_, _ = k.Verify(context.Background(), other, now.Add(UnknownTTL-time.Second))
	_, _ = k.Verify(context.Background(), other, now.Add(UnknownTTL+time.Second))
	if n := l.count(KeyPrefix(other)); n != 2 {
		t.Errorf("%d lookups of an unknown prefix over its TTL, want 2", n)
	}
}

func TestALookupThatAKeysCreationOvertookIsNotRememberedAsUnknown(t *testing.T) {
	l := newLookups()
	k := &Keys{Lookup: l.lookup}
	key, prefix := NewAPIKey(func(n int) string { return strings.Repeat("r", n) })
	l.during = func(string) {
		// The key commits, and its notification arrives, while the lookup
		// that did not see it is under way.
		l.create(key)
		k.Forget(prefix)
	}
	if _, err := k.Verify(context.Background(), key, time.Now()); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("the lookup that ran before the creation: err %v, want ErrInvalidToken", err)
	}
	l.during = nil
	if k.Unknown() != 0 {
		t.Fatalf("the prefix was remembered as unknown after its key's creation was announced")
	}
	if _, err := k.Verify(context.Background(), key, time.Now()); err != nil {
		t.Fatalf("the created key: %v", err)
	}
}

func TestUnknownPrefixesTakeBoundedMemory(t *testing.T) {
	k := &Keys{Lookup: newLookups().lookup}
	now := time.Now()
	most := 0
	for i := range MaxUnknown + 2_000 {
		key := fmt.Sprintf("ts_%08d_%s", i, strings.Repeat("x", 32))
		_, _ = k.Verify(context.Background(), key, now)
		most = max(most, k.Unknown())
	}
	if most > MaxUnknown {
		t.Errorf("%d unknown prefixes remembered at once, want at most %d", most, MaxUnknown)
	}
}

// A refusal must not tell an unknown prefix from a known one by its time:
// both paths hash the presented key and compare it in constant time
// (unknownKey), and differ by one more map lookup for the unknown one.
// The measure is the fastest of many interleaved rounds of each, which a
// loaded machine slows alike; the margin (within 2x either way) is wide,
// since a path that skipped the hash (a map lookup alone) is ~4x faster
// and one that asked the database 1,000x slower.
func TestAWrongSecretAndAnUnknownPrefixTakeTheSameTime(t *testing.T) {
	l := newLookups()
	k := &Keys{Lookup: l.lookup}
	key, _ := NewAPIKey(func(n int) string { return strings.Repeat("k", n) })
	l.create(key)
	wrongSecret := key[:len(key)-1] + "x"
	unknownPrefix := "ts_nokey000" + key[11:]
	now := time.Now()
	for _, try := range []string{key, wrongSecret, unknownPrefix} { // fill the caches
		_, _ = k.Verify(context.Background(), try, now)
	}
	// Many short batches, alternating: the fastest of each is a batch no
	// other process interrupted, so a busy machine does not decide the
	// ratio (30 batches of 2,000 once measured 2.66x under stress-ng).
	const rounds, per = 300, 200
	fastest := func(try string) time.Duration {
		start := time.Now()
		for range per {
			if _, err := k.Verify(context.Background(), try, now); err == nil {
				t.Fatalf("%s was accepted", try)
			}
		}
		return time.Since(start)
	}
	best := [2]time.Duration{time.Hour, time.Hour}
	for range rounds {
		best[0] = min(best[0], fastest(wrongSecret))
		best[1] = min(best[1], fastest(unknownPrefix))
	}
	ratio := float64(best[1]) / float64(best[0])
	t.Logf("per refusal: wrong secret %v, unknown prefix %v (%.2fx)", best[0]/per, best[1]/per, ratio)
	if ratio < 0.5 || ratio > 2 {
		t.Errorf("an unknown prefix takes %.2fx the time of a wrong secret, want within 2x", ratio)
	}
}
