package apihttp_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// filesSchema has a file column that takes small images and a files
// column that takes anything.
const filesSchema = `{"tables": [{"name": "books", "permissions": {"read": "public", "create": "key", "update": "key", "delete": "key"}, "columns": [
	{"name": "title", "type": "text", "required": true},
	{"name": "pages", "type": "integer"},
	{"name": "cover", "type": "file", "mime_types": ["image/*"], "max_size": 4096},
	{"name": "scans", "type": "files", "max_files": 2}]}]}`

// pngOf is a w×h PNG, its colour telling files apart; nil paints noise,
// which does not compress.
func pngOf(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	noise := rand.New(rand.NewPCG(1, 2))
	for x := range w {
		for y := range h {
			if c == nil {
				img.Set(x, y, color.RGBA{uint8(noise.IntN(256)), uint8(noise.IntN(256)), uint8(noise.IntN(256)), 255})
			} else {
				img.Set(x, y, c)
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// part is one part of a multipart body: a field when file is "".
type part struct {
	name, file string
	content    []byte
}

// multipartBody writes parts as multipart/form-data.
func multipartBody(t *testing.T, parts ...part) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		var err error
		if p.file != "" {
			w, e := mw.CreateFormFile(p.name, p.file)
			if e == nil {
				_, err = w.Write(p.content)
			} else {
				err = e
			}
		} else {
			err = mw.WriteField(p.name, string(p.content))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), mw.FormDataContentType()
}

// storedFiles lists the files kept under dir, by base name.
func storedFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, d.Name())
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

func fileServer(t *testing.T) (*testserver.Server, string) {
	dir := t.TempDir()
	return testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.FilesDir = dir })), dir
}

func TestAMultipartCreateStoresItsFilesAndTheRecordLinksToThem(t *testing.T) {
	t.Parallel()
	s, dir := fileServer(t)
	p := s.NewProject(filesSchema)
	cover := pngOf(t, 8, 8, color.RGBA{200, 10, 10, 255})
	body, ct := multipartBody(t,
		part{name: "title", content: []byte("Dune")},
		part{name: "pages", content: []byte("412")},
		part{name: "cover", file: "Dune Cover.PNG", content: cover},
		part{name: "scans", file: "p1.txt", content: []byte("page one")},
		part{name: "scans", file: "p2.pdf", content: []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")},
	)
	res := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct).Must(t, 201)
	rec := res.Data()
	if rec["title"] != "Dune" || rec["pages"] != float64(412) {
		t.Fatalf("fields: %v", rec)
	}
	c, _ := rec["cover"].(map[string]any)
	name, _ := c["name"].(string)
	if !strings.HasPrefix(name, "dune_cover_") || !strings.HasSuffix(name, ".png") || c["type"] != "image/png" || c["size"] != float64(len(cover)) {
		t.Fatalf("cover: %v", c)
	}
	url := "/v1/" + p.ID + "/books/1/files/cover/" + name
	if c["url"] != url {
		t.Fatalf("cover url %v, want %s", c["url"], url)
	}
	scans, _ := rec["scans"].([]any)
	if len(scans) != 2 {
		t.Fatalf("scans: %v", rec["scans"])
	}
	first, second := scans[0].(map[string]any), scans[1].(map[string]any)
	if first["type"] != "text/plain" || !strings.HasSuffix(first["name"].(string), ".txt") || second["type"] != "application/pdf" {
		t.Fatalf("scans in order, sniffed: %v", scans)
	}
	if got := storedFiles(t, dir); len(got) != 3 {
		t.Fatalf("stored %v, want 3 files", got)
	}

	// The file, as uploaded, with its type; by range; and not again once
	// the client holds it. The table is public: no credential needed.
	dl := s.Do("GET", url, "", nil).Must(t, 200)
	if !bytes.Equal(dl.Raw, cover) || dl.Header.Get("Content-Type") != "image/png" || dl.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("download: %d bytes, %v", len(dl.Raw), dl.Header)
	}
	if d := dl.Header.Get("Content-Disposition"); !strings.HasPrefix(d, "inline") || !strings.Contains(d, name) {
		t.Fatalf("Content-Disposition %q", d)
	}
	part := s.Do("GET", url, "", nil, "Range", "bytes=0-3").Must(t, 206)
	if !bytes.Equal(part.Raw, cover[:4]) || part.Header.Get("Content-Range") != "bytes 0-3/"+strconv.Itoa(len(cover)) {
		t.Fatalf("range: %q %v", part.Raw, part.Header)
	}
	s.Do("GET", url, "", nil, "If-None-Match", dl.Header.Get("ETag")).Must(t, 304)
	if d := s.Do("GET", scans[1].(map[string]any)["url"].(string), "", nil).Must(t, 200); d.Header.Get("Content-Disposition")[:6] != "inline" {
		t.Fatalf("a PDF is shown: %v", d.Header)
	}

	// Names the record does not hold, in a column or at all, are not found.
	s.Do("GET", "/v1/"+p.ID+"/books/1/files/scans/"+name, "", nil).Must(t, 404)
	s.Do("GET", "/v1/"+p.ID+"/books/2/files/cover/"+name, "", nil).Must(t, 404)
	s.Do("GET", "/v1/"+p.ID+"/books/1/files/title/"+name, "", nil).Must(t, 404)
	s.Do("GET", "/v1/"+p.ID+"/books/1/files/cover/..%2f..%2fetc", "", nil).Must(t, 404)
	s.Do("DELETE", url, p.Key, nil).Must(t, 405)

	// The list shows the same file objects.
	list := s.Do("GET", "/v1/"+p.ID+"/books", "", nil).Must(t, 200).List()
	if got := list[0]["cover"].(map[string]any)["url"]; got != url {
		t.Fatalf("list cover url %v", got)
	}
}

func TestAFileTheColumnDoesNotTakeIsRefusedAndNothingIsKept(t *testing.T) {
	t.Parallel()
	s, dir := fileServer(t)
	p := s.NewProject(filesSchema)
	for _, tc := range []struct {
		what   string
		parts  []part
		status int
		field  string
		says   string
	}{
		{"text as an image", []part{{name: "title", content: []byte("x")}, {name: "cover", file: "cover.png", content: []byte("not an image at all")}}, 400, "cover", "text/plain"},
		{"over max_size", []part{{name: "title", content: []byte("x")}, {name: "cover", file: "big.png", content: pngOf(t, 64, 64, nil)}}, 413, "cover", "larger than 4096 bytes"},
		{"three files for two", []part{{name: "title", content: []byte("x")}, {name: "scans", file: "a.txt", content: []byte("a")},
			{name: "scans", file: "b.txt", content: []byte("b")}, {name: "scans", file: "c.txt", content: []byte("c")}}, 400, "scans", "at most 2 files"},
		{"a file for a text column", []part{{name: "title", file: "t.txt", content: []byte("x")}}, 400, "title", "not a file column"},
		{"an unknown part", []part{{name: "title", content: []byte("x")}, {name: "colour", content: []byte("red")}}, 400, "colour", "not a column"},
		{"a bad number", []part{{name: "title", content: []byte("x")}, {name: "pages", content: []byte("many")}}, 400, "pages", "JSON value"},
		{"a valid image but no title", []part{{name: "cover", file: "c.png", content: pngOf(t, 2, 2, color.Black)}}, 400, "title", "required"},
	} {
		body, ct := multipartBody(t, tc.parts...)
		res := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct).Must(t, tc.status)
		if msg, _ := res.Details()[tc.field].(string); !strings.Contains(msg, tc.says) {
			t.Errorf("%s: details %v, want %s: …%s…", tc.what, res.Details(), tc.field, tc.says)
		}
		if got := storedFiles(t, dir); len(got) != 0 {
			t.Fatalf("%s: the refused write left %v", tc.what, got)
		}
	}
	// A JSON body cannot point a row at a file by writing its object.
	res := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, map[string]any{"title": "x",
		"cover": map[string]any{"name": "someone_elses.png", "size": 1, "type": "image/png"}}).Must(t, 400)
	if msg, _ := res.Details()["cover"].(string); !strings.Contains(msg, "multipart") {
		t.Fatalf("details %v", res.Details())
	}
	if n := s.Do("GET", "/v1/"+p.ID+"/books", "", nil).Must(t, 200).List(); len(n) != 0 {
		t.Fatalf("records were written: %v", n)
	}
}

func TestReplacingOrDeletingARecordsFilesRemovesTheOldOnes(t *testing.T) {
	t.Parallel()
	s, dir := fileServer(t)
	p := s.NewProject(filesSchema)
	body, ct := multipartBody(t, part{name: "title", content: []byte("Emma")},
		part{name: "cover", file: "a.png", content: pngOf(t, 4, 4, color.White)},
		part{name: "scans", file: "s.txt", content: []byte("scan")})
	rec := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct).Must(t, 201).Data()
	oldCover := rec["cover"].(map[string]any)
	scan := rec["scans"].([]any)[0].(map[string]any)

	// PATCH with a new cover: the old one is gone, the scan stays.
	body, ct = multipartBody(t, part{name: "cover", file: "b.png", content: pngOf(t, 5, 5, color.Black)})
	rec = s.Do("PATCH", "/v1/"+p.ID+"/books/1", p.Key, body, "Content-Type", ct).Must(t, 200).Data()
	newCover := rec["cover"].(map[string]any)
	if newCover["name"] == oldCover["name"] || rec["title"] != "Emma" {
		t.Fatalf("after PATCH: %v", rec)
	}
	s.Do("GET", oldCover["url"].(string), "", nil).Must(t, 404)
	s.Do("GET", newCover["url"].(string), "", nil).Must(t, 200)
	if got := storedFiles(t, dir); !slices.Equal(got, sorted(newCover["name"].(string), scan["name"].(string))) {
		t.Fatalf("stored %v after the PATCH", got)
	}

	// A refused PATCH keeps the record's files and drops its own upload.
	body, ct = multipartBody(t, part{name: "cover", file: "c.png", content: pngOf(t, 6, 6, color.White)}, part{name: "pages", content: []byte("-")})
	s.Do("PATCH", "/v1/"+p.ID+"/books/1", p.Key, body, "Content-Type", ct).Must(t, 400)
	if got := storedFiles(t, dir); len(got) != 2 {
		t.Fatalf("stored %v after a refused PATCH", got)
	}

	// PATCH of a field alone keeps the files; a null cover drops one.
	s.Do("PATCH", "/v1/"+p.ID+"/books/1", p.Key, map[string]any{"pages": 3}).Must(t, 200)
	if got := storedFiles(t, dir); len(got) != 2 {
		t.Fatalf("stored %v after a PATCH of pages", got)
	}
	rec = s.Do("PATCH", "/v1/"+p.ID+"/books/1", p.Key, map[string]any{"cover": nil}).Must(t, 200).Data()
	if rec["cover"] != nil || len(storedFiles(t, dir)) != 1 {
		t.Fatalf("after cover: null: %v, stored %v", rec["cover"], storedFiles(t, dir))
	}

	// DELETE removes what is left.
	s.Do("DELETE", "/v1/"+p.ID+"/books/1", p.Key, nil).Must(t, 200)
	if got := storedFiles(t, dir); len(got) != 0 {
		t.Fatalf("stored %v after the DELETE", got)
	}
}

func TestAPrivateTablesFilesNeedTheCallerToReadTheRecord(t *testing.T) {
	t.Parallel()
	s, _ := fileServer(t)
	doc := strings.Replace(filesSchema, `"read": "public"`, `"read": "key"`, 1)
	p := s.NewProject(doc)
	other := s.NewProject(doc)
	body, ct := multipartBody(t, part{name: "title", content: []byte("Secret")}, part{name: "cover", file: "a.png", content: pngOf(t, 3, 3, color.White)})
	url := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct).Must(t, 201).Data()["cover"].(map[string]any)["url"].(string)
	s.Do("GET", url, "", nil).Must(t, 401)
	s.Do("GET", url, other.Key, nil).Must(t, 401)
	dl := s.Do("GET", url, p.Key, nil).Must(t, 200)
	if cc := dl.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
		t.Fatalf("a private file's Cache-Control: %q", cc)
	}
	if res, err := http.Head(s.URL + url); err != nil || res.StatusCode != 401 {
		t.Fatalf("HEAD without a key: %v %v", res, err)
	}
}

func sorted(names ...string) []string {
	slices.Sort(names)
	return names
}

// waitForFiles polls dir until it holds want files (the sweep runs in the
// background a moment after a write), failing after 20 s: the sweep is
// due 2 s after the change, the rest is margin for a loaded machine.
func waitForFiles(t *testing.T, dir string, want int, after string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := storedFiles(t, dir)
		if len(got) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: stored %v, want %d files", after, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestTheSweepRemovesTheFilesOfWritesByFilterDroppedColumnsAndDeletedProjects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A file no row names is removed once it is 3 s old: an upload's own
	// write commits within milliseconds of its file being stored, so the
	// sweeps this project's changes start never take a file mid-write.
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.FilesDir, c.FilesGrace = dir, 3*time.Second }))
	p := s.NewProject(filesSchema)
	for _, title := range []string{"a", "b", "c"} {
		body, ct := multipartBody(t, part{name: "title", content: []byte(title)},
			part{name: "cover", file: title + ".png", content: pngOf(t, 2, 2, color.White)},
			part{name: "scans", file: title + ".txt", content: []byte("scan of " + title)})
		s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct).Must(t, 201)
	}
	if got := storedFiles(t, dir); len(got) != 6 {
		t.Fatalf("stored %v", got)
	}
	time.Sleep(3 * time.Second) // the files are now old enough to be swept once no row names them

	res := s.Do("DELETE", "/v1/"+p.ID+"/books?filter[title]=a", p.Key, nil).Must(t, 200)
	if res.Data()["affected"] != float64(1) {
		t.Fatalf("deleted %s", res.Raw)
	}
	waitForFiles(t, dir, 4, "a delete by filter")
	for _, name := range storedFiles(t, dir) {
		if strings.HasPrefix(name, "a_") {
			t.Fatalf("a's file %s was kept", name)
		}
	}

	// A generate that drops the scans column drops their files.
	s.Publish(p.Session, p.ID, strings.Replace(filesSchema, `,
	{"name": "scans", "type": "files", "max_files": 2}`, "", 1))
	waitForFiles(t, dir, 2, "dropping the scans column")

	// Deleting the project removes the rest.
	s.Do("DELETE", "/api/projects/"+p.ID, p.Session, nil).Must(t, 200)
	waitForFiles(t, dir, 0, "deleting the project")
}
