package apihttp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/tablesmith/tablesmith/internal/testserver"
)

// The generated API compresses its own answers: a list big enough goes
// out in the client's preferred encoding with Vary and a Content-Length,
// a small answer goes out as it is, and a client that accepts nothing
// gets the plain bytes.
func TestAnswersAreCompressedWhenBigAndAcceptedOnly(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	for i := 0; i < 40; i++ {
		s.API(p, "POST", "/notes", map[string]any{"body": "a note long enough to make the list bigger than a kilobyte " + strconv.Itoa(i)}).Must(t, 201)
	}
	get := func(path string, headers ...string) *testserver.Response {
		return s.Do("GET", "/v1/"+p.ID+path, p.Key, nil, headers...).Must(t, 200)
	}
	// (Go's client asks for gzip itself and unpacks it, unless told otherwise.)
	plain := get("/notes?limit=40&count=none", "Accept-Encoding", "identity")
	if plain.Header.Get("Content-Encoding") != "" || len(plain.List()) != 40 {
		t.Fatalf("without Accept-Encoding: encoding %q, %d rows", plain.Header.Get("Content-Encoding"), len(plain.List()))
	}
	if plain.Header.Get("Content-Length") != strconv.Itoa(len(plain.Raw)) {
		t.Errorf("Content-Length %q for %d bytes", plain.Header.Get("Content-Length"), len(plain.Raw))
	}
	decoders := map[string]func([]byte) ([]byte, error){
		"gzip": func(b []byte) ([]byte, error) {
			r, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			return io.ReadAll(r)
		},
		"zstd": func(b []byte) ([]byte, error) {
			d, _ := zstd.NewReader(nil)
			defer d.Close()
			return d.DecodeAll(b, nil)
		},
	}
	for accept, want := range map[string]string{"gzip": "gzip", "gzip, deflate, br, zstd": "zstd", "zstd;q=0.5, gzip": "gzip"} {
		r := get("/notes?limit=40&count=none", "Accept-Encoding", accept)
		enc := r.Header.Get("Content-Encoding")
		if enc != want || r.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("Accept-Encoding %q: Content-Encoding %q, Vary %q; want %s", accept, enc, r.Header.Get("Vary"), want)
		}
		if r.Header.Get("Content-Length") != strconv.Itoa(len(r.Raw)) || len(r.Raw) >= len(plain.Raw)/2 {
			t.Errorf("%s: Content-Length %q, %d bytes against %d plain", enc, r.Header.Get("Content-Length"), len(r.Raw), len(plain.Raw))
		}
		body, err := decoders[enc](r.Raw)
		if err != nil || !json.Valid(body) || !bytes.Equal(body, plain.Raw) {
			t.Fatalf("%s body decodes to %d bytes (%v), want the plain answer's %d", enc, len(body), err, len(plain.Raw))
		}
	}
	// One record is smaller than compress.MinSize: sent as it is.
	one := get("/notes/1", "Accept-Encoding", "gzip, zstd")
	if one.Header.Get("Content-Encoding") != "" || one.Header.Get("Vary") != "" || one.Data()["id"] != float64(1) {
		t.Fatalf("small answer: Content-Encoding %q, Vary %q, body %s", one.Header.Get("Content-Encoding"), one.Header.Get("Vary"), one.Raw)
	}
	// Its Content-Length comes from net/http (autoLengthMax); a HEAD,
	// whose body is never written, gets the GET's from the module.
	if one.Header.Get("Content-Length") != strconv.Itoa(len(one.Raw)) || len(one.Raw) > 2048 {
		t.Errorf("small answer: Content-Length %q for %d bytes", one.Header.Get("Content-Length"), len(one.Raw))
	}
	head := s.Do("HEAD", "/v1/"+p.ID+"/notes/1", p.Key, nil, "Accept-Encoding", "identity").Must(t, 200)
	if head.Header.Get("Content-Length") != strconv.Itoa(len(one.Raw)) || len(head.Raw) != 0 {
		t.Errorf("HEAD: Content-Length %q (GET's body %d bytes), body %d bytes", head.Header.Get("Content-Length"), len(one.Raw), len(head.Raw))
	}
	// Errors are envelopes like any other answer.
	bad := s.Do("GET", "/v1/"+p.ID+"/notes?limit=abc", p.Key, nil, "Accept-Encoding", "gzip").Must(t, 400)
	if bad.Body["success"] != false {
		t.Fatalf("error answer %s", bad.Raw)
	}
}

// Request ids the server makes are 24 hex digits and never repeat.
func TestRequestIDsAreUniqueHex(t *testing.T) {
	t.Parallel()
	s := testserver.New(t)
	p := s.NewProject(`{"tables": [{"name": "notes", "columns": [{"name": "body", "type": "text"}]}]}`)
	seen := map[string]bool{}
	hex24 := regexp.MustCompile(`^[0-9a-f]{24}$`)
	for i := 0; i < 50; i++ {
		id := s.API(p, "GET", "/notes?limit=1", nil).Must(t, 200).Header.Get("X-Request-Id")
		if !hex24.MatchString(id) || seen[id] {
			t.Fatalf("request id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
	if got := s.Do("GET", "/v1/"+p.ID+"/notes?limit=1", p.Key, nil, "X-Request-Id", "client-chosen-1").Header.Get("X-Request-Id"); got != "client-chosen-1" {
		t.Fatalf("a client's request id comes back as %q", got)
	}
}
