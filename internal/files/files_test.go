package files

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/tests3"
	"github.com/tablesmith/tablesmith/schema"
)

func TestTheLocalStoreKeepsAnObjectWholeOrNotAtAll(t *testing.T) {
	l, err := NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	storeContract(t, l)
	// Nothing of the failed put is left beside the object, and keys that
	// would leave the root are nobody's.
	entries, _ := os.ReadDir(filepath.Join(l.Root, "p1"))
	if len(entries) != 1 {
		t.Fatalf("the directory holds %d entries, want a.txt alone", len(entries))
	}
	for _, key := range []string{"../x", "p1/../../x", "/etc/passwd", `p1\x`, ""} {
		if _, err := l.Open(context.Background(), key); !errors.Is(err, ErrNotFound) {
			t.Errorf("open %q: %v", key, err)
		}
	}
}

func TestTheS3StoreKeepsAnObjectWholeOrNotAtAll(t *testing.T) {
	gw := tests3.Start(t)
	cfg := S3Config{Endpoint: gw.Endpoint, Bucket: gw.Bucket, Region: gw.Region, AccessKey: gw.AccessKey, SecretKey: gw.SecretKey, PathStyle: true}
	s, err := NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	storeContract(t, s)
	// A file larger than a part goes up as a multipart upload and comes
	// back whole, and seeks.
	big := bytes.Repeat([]byte("0123456789abcdef"), (s3PartSize+s3PartSize/2)/16)
	if n, err := s.Put(context.Background(), "p2/big.bin", bytes.NewReader(big)); err != nil || n != int64(len(big)) {
		t.Fatalf("put of %d bytes: %d %v", len(big), n, err)
	}
	o, err := s.Open(context.Background(), "p2/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.Seek(int64(len(big))-16, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	tail, _ := io.ReadAll(o)
	if string(tail) != "0123456789abcdef" || o.Size() != int64(len(big)) {
		t.Fatalf("the tail after a seek: %q, size %d", tail, o.Size())
	}
	if _, err := NewS3(context.Background(), S3Config{Endpoint: cfg.Endpoint, Bucket: "missing", AccessKey: cfg.AccessKey,
		SecretKey: cfg.SecretKey, PathStyle: true}); err == nil || !strings.Contains(err.Error(), "no bucket missing") {
		t.Fatalf("a missing bucket: %v", err)
	}
}

// storeContract is what every Store does: an object whole or not at all,
// reads, copies, listings by prefix, deletes of what is and is not there.
func storeContract(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	n, err := s.Put(ctx, "p1/a.txt", strings.NewReader("hello"))
	if err != nil || n != 5 {
		t.Fatalf("put: %d %v", n, err)
	}
	o, err := s.Open(ctx, "p1/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(o)
	o.Close()
	if string(got) != "hello" || o.Size() != 5 || time.Since(o.ModTime()) > time.Hour {
		t.Fatalf("read %q, size %d, modified %v", got, o.Size(), o.ModTime())
	}
	// A copy that fails half-way leaves nothing under the key.
	broken := io.MultiReader(strings.NewReader("half"), errReader{})
	if _, err := s.Put(ctx, "p1/b.txt", broken); err == nil {
		t.Fatal("a failed copy was stored")
	}
	if _, err := s.Open(ctx, "p1/b.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("open of a failed put: %v", err)
	}
	if err := s.Copy(ctx, "p1/a.txt", "p1/c.txt"); err != nil {
		t.Fatal(err)
	}
	if err := s.Copy(ctx, "p1/never.txt", "p1/d.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("copy of a missing object: %v", err)
	}
	if _, err := s.Put(ctx, "p10/other.txt", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	var listed []string
	if err := s.List(ctx, "p1/", func(i Info) error { listed = append(listed, i.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(listed, " ") != "p1/a.txt p1/c.txt" {
		t.Fatalf("listed %v under p1/", listed)
	}
	if err := s.Delete(ctx, "p1/c.txt", "p1/never.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, "p1/c.txt"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if o, err := s.Open(ctx, "p1/a.txt"); err != nil {
		t.Fatalf("deleting the copy took the original: %v", err)
	} else {
		o.Close()
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestNamesAreSafeUniqueAndKeepTheClientsStem(t *testing.T) {
	for _, tc := range []struct{ original, media, prefix, ext string }{
		{"Holiday Photo.JPG", "image/jpeg", "holiday_photo_", ".jpg"},
		{"../../etc/passwd", "text/plain", "passwd_", ""},
		{`C:\Users\me\report (final).pdf`, "application/pdf", "report_final_", ".pdf"},
		{"notes.md", "text/plain", "notes_", ".md"},
		{"<script>.html", "text/html", "script_", ".html"},
		{"", "application/octet-stream", "file_", ""},
		{"ünïcode.png", "image/png", "n_code_", ".png"},
	} {
		got := NewName(tc.original, tc.media)
		if !strings.HasPrefix(got, tc.prefix) || !strings.HasSuffix(got, tc.ext) || !ValidName(got) {
			t.Errorf("NewName(%q, %s) = %q, want %s…%s and valid", tc.original, tc.media, got, tc.prefix, tc.ext)
		}
	}
	if first, second := NewName("a.png", "image/png"), NewName("a.png", "image/png"); first == second {
		t.Error("two uploads of one name got one stored name")
	}
	for _, bad := range []string{"", ".hidden", "a/b", "a%2fb", "A.png", "a b", strings.Repeat("a", 121)} {
		if ValidName(bad) {
			t.Errorf("ValidName(%q)", bad)
		}
	}
}

func TestASweepRemovesOnlyOldObjectsNoRowNames(t *testing.T) {
	ctx := context.Background()
	l, _ := NewLocal(t.TempDir())
	for _, key := range []string{"p/kept.png", "p/orphan.png", "p/young.png", "q/other.png"} {
		if _, err := l.Put(ctx, key, bytes.NewReader([]byte("x"))); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{"kept.png", "orphan.png"} {
		if err := os.Chtimes(filepath.Join(l.Root, "p", name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	refs := func(context.Context) (map[string]bool, error) { return map[string]bool{"kept.png": true}, nil }
	n, err := Sweep(ctx, l, "p", refs, time.Hour, time.Now())
	if err != nil || n != 1 {
		t.Fatalf("swept %d, %v", n, err)
	}
	var left []string
	_ = l.List(ctx, "", func(i Info) error { left = append(left, i.Key); return nil })
	if strings.Join(left, " ") != "p/kept.png p/young.png q/other.png" {
		t.Fatalf("left %v", left)
	}
	// An error reading the references removes nothing.
	if n, err := Sweep(ctx, l, "p", func(context.Context) (map[string]bool, error) { return nil, errors.New("down") }, 0, time.Now()); err == nil || n != 0 {
		t.Fatalf("swept %d on an error", n)
	}
	// A project that is gone loses every object at once.
	if n, err := Sweep(ctx, l, "p", nil, time.Hour, time.Now()); err != nil || n != 2 {
		t.Fatalf("swept %d of a gone project, %v", n, err)
	}
}

func TestAnUploadTokenIsTheServersForOneColumnUntilItExpires(t *testing.T) {
	key := []byte("k")
	now := time.Unix(1_800_000_000, 0)
	u := Upload{Project: "p1", Table: "books", Column: "cover", File: schemaFile("cover_abc.png"), Expires: now.Add(TokenLifetime).Unix()}
	token := Sign(key, u)
	if got, msg, err := Verify(key, token, "p1", "books", "cover", now); err != nil || got.File != u.File {
		t.Fatalf("verify: %v %s %v", got, msg, err)
	}
	for _, tc := range []struct {
		key                           []byte
		token, project, table, column string
		at                            time.Time
		says                          string
	}{
		{[]byte("other"), token, "p1", "books", "cover", now, "not an upload token"},
		{key, token + "x", "p1", "books", "cover", now, "not an upload token"},
		{key, "a.b", "p1", "books", "cover", now, "not an upload token"},
		{key, token, "p2", "books", "cover", now, "another project"},
		{key, token, "p1", "books", "back", now, "another column"},
		{key, token, "p1", "books", "cover", now.Add(TokenLifetime + time.Second), "expired"},
	} {
		if _, msg, err := Verify(tc.key, tc.token, tc.project, tc.table, tc.column, tc.at); !errors.Is(err, ErrBadToken) || !strings.Contains(msg, tc.says) {
			t.Errorf("%+v: %s %v", tc, msg, err)
		}
	}
	if TokenLifetime >= Grace {
		t.Fatal("a token outlives the grace: a sweep could take the upload it stands for")
	}
}

func schemaFile(name string) schema.StoredFile {
	return schema.StoredFile{Name: name, Size: 3, Type: "image/png"}
}
