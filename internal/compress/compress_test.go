package compress

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func TestNegotiatePicksTheClientsPreferredEncoding(t *testing.T) {
	for _, c := range []struct{ accept, want string }{
		{"", ""},
		{"identity", ""},
		{"br", ""},
		{"gzip", Gzip},
		{"x-gzip", Gzip},
		{"gzip, deflate, br, zstd", Zstd}, // Chromium's: a tie goes to zstd
		{"GZIP;Q=1, zstd;q=0.5", Gzip},    // names and q are case-insensitive
		{"zstd;q=0, gzip;q=0.1", Gzip},    // q=0 refuses
		{"zstd;q=0, gzip;q=0", ""},        // both refused
		{"*", Zstd},                       // any encoding
		{"*;q=0.5, gzip", Gzip},           // a named one beats the wildcard
		{"gzip;q=0, *", Zstd},             // the wildcard does not revive a refused one
		{"gzip;q=abc", ""},                // a malformed q counts as 0
		{" gzip ; q=0.8 , zstd ; q=0.9 ", Zstd},
	} {
		if got := Negotiate(c.accept); got != c.want {
			t.Errorf("Negotiate(%q) = %q, want %q", c.accept, got, c.want)
		}
	}
}

func TestEncodeRoundTripsThroughStandardDecoders(t *testing.T) {
	body := []byte(strings.Repeat(`{"id":1,"name":"Ann","email":"ann@example.com"},`, 200))
	gz := Encode(Gzip, nil, body)
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("gzip round trip: %v, equal %v", err, bytes.Equal(got, body))
	}
	zs := Encode(Zstd, []byte("prefix"), body)
	if !bytes.HasPrefix(zs, []byte("prefix")) {
		t.Fatal("Encode does not append to dst")
	}
	d, _ := zstd.NewReader(nil)
	got, err = d.DecodeAll(zs[len("prefix"):], nil)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("zstd round trip: %v", err)
	}
	if len(gz) > len(body)/4 || len(zs) > len(body)/4 {
		t.Errorf("repetitive %d bytes compressed to gzip %d, zstd %d", len(body), len(gz), len(zs))
	}
	// The pool hands out a reset writer: a second body does not carry the first.
	small := []byte(`{"a":1}`)
	r, _ = gzip.NewReader(bytes.NewReader(Encode(Gzip, nil, small)))
	if got, _ := io.ReadAll(r); !bytes.Equal(got, small) {
		t.Fatalf("second gzip body = %q", got)
	}
}
