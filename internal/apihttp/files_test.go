package apihttp_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
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

	"github.com/tablesmith/tablesmith/internal/files"
	"github.com/tablesmith/tablesmith/internal/move"
	"github.com/tablesmith/tablesmith/internal/plans"
	"github.com/tablesmith/tablesmith/internal/service"
	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/tests3"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// filesSchema has a file column that takes small images and a files
// column that takes anything.
const filesSchema = `{"tables": [{"name": "books", "permissions": {"read": "public", "create": "key", "update": "key", "delete": "key"}, "columns": [
	{"name": "title", "type": "text", "required": true},
	{"name": "pages", "type": "integer"},
	{"name": "cover", "type": "file", "mime_types": ["image/*"], "max_size": 4096, "thumbnails": true},
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

	// A signed URL opens the file without a credential until it expires.
	signed := s.Do("POST", url, p.Key, nil).Must(t, 200).Data()
	link, _ := signed["url"].(string)
	if !strings.HasPrefix(link, url+"?expires=") || signed["expires_at"] == nil {
		t.Fatalf("signed: %v", signed)
	}
	if got := s.Do("GET", link, "", nil).Must(t, 200); !bytes.Equal(got.Raw, dl.Raw) || !strings.HasPrefix(got.Header.Get("Cache-Control"), "private, max-age=") {
		t.Fatalf("the signed URL: %v", got.Header)
	}
	s.Do("GET", link+"&thumb=2x2", "", nil).Must(t, 200)
	s.Do("GET", strings.Replace(link, "signature=", "signature=x", 1), "", nil).Must(t, 403)
	s.Do("GET", strings.Replace(link, "/books/1/", "/books/2/", 1), "", nil).Must(t, 403)
	s.Do("GET", strings.Replace(link, "expires=", "expires=1", 1), "", nil).Must(t, 403)
	s.Do("GET", url+"?signature=abc", "", nil).Must(t, 400)
	s.Do("POST", url, other.Key, nil).Must(t, 401)
	s.Do("POST", url+"?expires_in=0", p.Key, nil).Must(t, 400)
	s.Do("POST", url+"?expires_in=60;x", p.Key, nil).Must(t, 400)
	s.Do("GET", url+"?thumb=2x2;x", p.Key, nil).Must(t, 400)
	s.Do("POST", url+"?expires_in=999999999", p.Key, nil).Must(t, 400)
	short := s.Do("POST", url+"?expires_in=1", p.Key, nil).Must(t, 200).Data()["url"].(string)
	time.Sleep(2100 * time.Millisecond) // past its one second
	if res := s.Do("GET", short, "", nil).Must(t, 403); !strings.Contains(res.Message(), "expired") {
		t.Fatalf("an expired signed URL: %s", res.Raw)
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

func TestAnUploadTokenSetsAFileFromAJSONBodyOnceForEachUse(t *testing.T) {
	t.Parallel()
	s, dir := fileServer(t)
	p := s.NewProject(filesSchema)
	other := s.NewProject(filesSchema)
	upload := func(p *testserver.Project, column string, body []byte, headers ...string) *testserver.Response {
		return s.Do("POST", "/v1/"+p.ID+"/books/files/"+column+"?name=Front+Cover.png", p.Key, body, headers...)
	}
	cover := pngOf(t, 6, 6, color.Black)
	up := upload(p, "cover", cover, "Content-Type", "application/octet-stream").Must(t, 201).Data()
	token, _ := up["token"].(string)
	if token == "" || !strings.HasPrefix(up["name"].(string), "front_cover_") || up["type"] != "image/png" || up["size"] != float64(len(cover)) || up["expires_at"] == nil {
		t.Fatalf("upload answer: %v", up)
	}

	// Two records made with one token each hold a file of their own.
	first := s.API(p, "POST", "/books", map[string]any{"title": "One", "cover": token}).Must(t, 201).Data()["cover"].(map[string]any)
	second := s.API(p, "POST", "/books", map[string]any{"title": "Two", "cover": token}).Must(t, 201).Data()["cover"].(map[string]any)
	if first["name"] == second["name"] || first["name"] == up["name"] || first["size"] != float64(len(cover)) {
		t.Fatalf("covers %v and %v from upload %v", first, second, up["name"])
	}
	s.API(p, "DELETE", "/books/1", nil).Must(t, 200)
	if dl := s.Do("GET", second["url"].(string), "", nil).Must(t, 200); !bytes.Equal(dl.Raw, cover) {
		t.Fatal("deleting one record took the other's file")
	}

	// A bulk create takes tokens too, each record a copy of its own; a
	// bad token is named by its record.
	bulk := s.API(p, "POST", "/books/bulk", []map[string]any{{"title": "B1", "cover": token}, {"title": "B2", "cover": token}}).Must(t, 201).List()
	if len(bulk) != 2 || bulk[0]["cover"].(map[string]any)["name"] == bulk[1]["cover"].(map[string]any)["name"] {
		t.Fatalf("bulk with tokens: %v", bulk)
	}
	bad := s.API(p, "POST", "/books/bulk", []map[string]any{{"title": "B3", "cover": token}, {"title": "B4", "cover": "nope"}}).Must(t, 400)
	if _, named := bad.Details()["1.cover"]; !named {
		t.Fatalf("a bad token in a bulk create: %s", bad.Raw)
	}
	for _, id := range []string{fmt.Sprint(bulk[0]["id"]), fmt.Sprint(bulk[1]["id"])} {
		s.API(p, "DELETE", "/books/"+id, nil).Must(t, 200)
	}

	// A multipart upload; a files column takes a list of tokens.
	body, ct := multipartBody(t, part{name: "file", file: "notes.txt", content: []byte("notes")})
	notes := upload(p, "scans", body, "Content-Type", ct).Must(t, 201).Data()["token"].(string)
	rec := s.API(p, "PATCH", "/books/2", map[string]any{"scans": []any{notes, notes}}).Must(t, 200).Data()
	if scans := rec["scans"].([]any); len(scans) != 2 || scans[0].(map[string]any)["type"] != "text/plain" {
		t.Fatalf("scans %v", rec["scans"])
	}

	// Refused: a token for another column, table or project, a changed
	// token, an image column given text, a made-up value.
	for _, tc := range []struct {
		body map[string]any
		says string
	}{
		{map[string]any{"title": "x", "cover": notes}, "another column (books.scans)"},
		{map[string]any{"title": "x", "cover": token[:len(token)-2] + "xx"}, "not an upload token"},
		{map[string]any{"title": "x", "cover": "front_cover.png"}, "not an upload token"},
		{map[string]any{"title": "x", "scans": []any{notes, 7}}, "list of files"},
	} {
		res := s.API(p, "POST", "/books", tc.body).Must(t, 400)
		if msg := fmt.Sprint(res.Details()); !strings.Contains(msg, tc.says) {
			t.Errorf("%v: %s, want …%s…", tc.body, res.Raw, tc.says)
		}
	}
	if res := s.API(other, "POST", "/books", map[string]any{"title": "x", "cover": token}).Must(t, 400); !strings.Contains(fmt.Sprint(res.Details()), "of another project") {
		t.Errorf("another project's token: %s", res.Raw)
	}
	res := upload(p, "cover", []byte("plain text"), "Content-Type", "text/plain").Must(t, 400)
	if msg, _ := res.Details()["cover"].(string); !strings.Contains(msg, "text/plain") {
		t.Fatalf("a text upload for an image column: %s", res.Raw)
	}
	s.Do("POST", "/v1/"+p.ID+"/books/files/title", p.Key, []byte("x")).Must(t, 404)
	s.Do("POST", "/v1/"+p.ID+"/books/files/cover", "", cover).Must(t, 401)
	s.Do("POST", "/v1/"+p.ID+"/books/files/cover?colour=red", p.Key, cover).Must(t, 400)
	// A query string read only in part is refused, not narrowed.
	for _, q := range []string{"name=a.png;x", "name=a.png&name=b.png", "name=%zz"} {
		if res := s.Do("POST", "/v1/"+p.ID+"/books/files/cover?"+q, p.Key, cover); res.Status != 400 || res.ErrorCode() != "INVALID_QUERY" {
			t.Errorf("upload ?%s: %d %s", q, res.Status, res.Raw)
		}
	}
	// The uploads and the two records' files: the refused upload left nothing.
	if got := storedFiles(t, dir); len(got) != 5 {
		t.Fatalf("stored %v, want the two uploads, the kept cover and two scans", got)
	}
}

func TestAThumbnailFitsTheAskedBoxAndIsMadeOnce(t *testing.T) {
	t.Parallel()
	s, dir := fileServer(t)
	p := s.NewProject(filesSchema)
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewRGBA(image.Rect(0, 0, 40, 20)), nil); err != nil {
		t.Fatal(err)
	}
	body, ct := multipartBody(t, part{name: "title", content: []byte("Thumbs")},
		part{name: "cover", file: "wide.png", content: pngOf(t, 32, 16, nil)},
		part{name: "scans", file: "s.txt", content: []byte("text")})
	rec := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct).Must(t, 201).Data()
	url := rec["cover"].(map[string]any)["url"].(string)

	thumb := s.Do("GET", url+"?thumb=16x16", "", nil).Must(t, 200)
	img, format, err := image.Decode(bytes.NewReader(thumb.Raw))
	if err != nil || format != "png" || img.Bounds().Dx() != 16 || img.Bounds().Dy() != 8 || thumb.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("thumbnail: %v %s %v %v", err, format, img.Bounds(), thumb.Header)
	}
	if etag := thumb.Header.Get("ETag"); !strings.HasSuffix(etag, `@16x16"`) {
		t.Fatalf("ETag %s", etag)
	}
	before := len(storedFiles(t, dir))
	again := s.Do("GET", url+"?thumb=16x16", "", nil).Must(t, 200)
	if !bytes.Equal(again.Raw, thumb.Raw) || len(storedFiles(t, dir)) != before {
		t.Fatal("the second request made the thumbnail again")
	}
	// Never enlarged.
	big := s.Do("GET", url+"?thumb=100x100", "", nil).Must(t, 200)
	if img, _, err := image.Decode(bytes.NewReader(big.Raw)); err != nil || img.Bounds().Dx() != 32 {
		t.Fatalf("a box larger than the image: %v %v", err, img.Bounds())
	}

	// A JPEG's thumbnail is a JPEG.
	body, ct = multipartBody(t, part{name: "cover", file: "photo.jpg", content: jpg.Bytes()})
	jurl := s.Do("PATCH", "/v1/"+p.ID+"/books/1", p.Key, body, "Content-Type", ct).Must(t, 200).Data()["cover"].(map[string]any)["url"].(string)
	if j := s.Do("GET", jurl+"?thumb=10x10", "", nil).Must(t, 200); j.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("a JPEG's thumbnail: %v", j.Header)
	}

	scan := rec["scans"].([]any)[0].(map[string]any)["url"].(string)
	for _, bad := range []string{jurl + "?thumb=0x10", jurl + "?thumb=2000x10", jurl + "?thumb=10", jurl + "?thumb=1x1&thumb=2x2",
		jurl + "?size=10", scan + "?thumb=10x10"} {
		if res := s.Do("GET", bad, "", nil); res.Status != 400 || res.ErrorCode() != "INVALID_QUERY" {
			t.Errorf("%s: %d %s", bad, res.Status, res.Raw)
		}
	}
}

func TestAPlansFileLimitsBoundOneFileAndTheProjectsStorage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tiny := plans.Defaults()["unlimited"]
	tiny.Name, tiny.FileStorage, tiny.MaxFileSize = "tiny", 3000, 2000
	s := testserver.New(t, testserver.WithPlans(plans.Set{"tiny": tiny}, "tiny"),
		testserver.WithConfig(func(c *service.Config) { c.FilesDir = dir }))
	p := s.NewProject(filesSchema)
	write := func(n int) *testserver.Response {
		body, ct := multipartBody(t, part{name: "title", content: []byte("x")},
			part{name: "scans", file: "s.txt", content: bytes.Repeat([]byte("a"), n)})
		return s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct)
	}
	over := write(2500).Must(t, 413)
	if msg, _ := over.Details()["scans"].(string); !strings.Contains(msg, "larger than 2000 bytes") {
		t.Fatalf("a file over the plan's max_file_size: %s", over.Raw)
	}
	write(1500).Must(t, 201)
	full := write(1600).Must(t, 403)
	if full.ErrorCode() != "PLAN_LIMIT" || !strings.Contains(full.Message(), "of the tiny plan's") {
		t.Fatalf("a file past the plan's storage: %s", full.Raw)
	}
	// An upload of its own meets the same bound; a file that fits is taken.
	s.Do("POST", "/v1/"+p.ID+"/books/files/scans?name=n.txt", p.Key, bytes.Repeat([]byte("b"), 1600)).Must(t, 403)
	s.Do("POST", "/v1/"+p.ID+"/books/files/scans?name=n.txt", p.Key, bytes.Repeat([]byte("b"), 1400)).Must(t, 201)
	if got := storedFiles(t, dir); len(got) != 2 {
		t.Fatalf("stored %v: the refused files were kept", got)
	}
	// The project card says what is held against the plan.
	files := s.Do("GET", "/api/projects/"+p.ID, p.Session, nil).Must(t, 200).Data()["files"]
	if fmt.Sprint(files) != "map[limit_bytes:3000 used_bytes:2900]" {
		t.Fatalf("the project's files: %v", files)
	}
	// So does its analytics.
	if got := s.Do("GET", "/api/projects/"+p.ID+"/analytics", p.Session, nil).Must(t, 200).Data()["file_storage"]; fmt.Sprint(got) != fmt.Sprint(files) {
		t.Fatalf("the analytics' file storage: %v", got)
	}
}

// TestAProjectMovedToAnotherDataServerKeepsItsFiles: the rows move to
// the other server (move-project) and name the same stored files, which
// stay where they are; the sweeps the move starts find them named there.
func TestAProjectMovedToAnotherDataServerKeepsItsFiles(t *testing.T) {
	t.Parallel()
	control, a, b := testpg.NewDatabase(t), testpg.NewDatabase(t), testpg.NewDatabase(t)
	dir := t.TempDir()
	s := testserver.New(t, testserver.WithConfig(func(cfg *service.Config) {
		cfg.DatabaseURL, cfg.FilesDir, cfg.FilesGrace = control, dir, time.Millisecond
		cfg.DataServers = []service.DataServer{{Name: "a", URL: a}, {Name: "b", URL: b}}
	}))
	p := s.NewProject(filesSchema)
	cover := pngOf(t, 5, 5, color.White)
	body, ct := multipartBody(t, part{name: "title", content: []byte("Moving")}, part{name: "cover", file: "c.png", content: cover})
	url := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct).Must(t, 201).Data()["cover"].(map[string]any)["url"].(string)
	if _, err := move.Project(context.Background(), s.Svc.Store, p.ID, "b", move.Options{}); err != nil {
		t.Fatal(err)
	}
	// Writes answer 503 until the switch reaches the node; then a write
	// lands on b.
	deadline := time.Now().Add(10 * time.Second)
	for r := s.API(p, "PATCH", "/books/1", map[string]any{"pages": 2}); r.Status != 200; r = s.API(p, "PATCH", "/books/1", map[string]any{"pages": 2}) {
		if r.Status != 503 || time.Now().After(deadline) {
			t.Fatalf("write after the move: %d %s", r.Status, r.Raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // the sweeps the move's changes started (2 s after them) have run
	if dl := s.Do("GET", url, "", nil).Must(t, 200); !bytes.Equal(dl.Raw, cover) {
		t.Fatal("the file changed in the move")
	}
	if got := storedFiles(t, dir); len(got) != 1 {
		t.Fatalf("stored %v after the move", got)
	}
}

// TestFilesLiveInAnS3CompatibleStoreWhenOneIsConfigured: the same API on
// a real S3-compatible store (versitygw): a multipart create, a token's
// use (a copy made in the store), a ranged download, a thumbnail, and
// the objects gone with their record.
func TestFilesLiveInAnS3CompatibleStoreWhenOneIsConfigured(t *testing.T) {
	t.Parallel()
	gw := tests3.Start(t)
	cfg := files.S3Config{Endpoint: gw.Endpoint, Bucket: gw.Bucket, Region: gw.Region, AccessKey: gw.AccessKey, SecretKey: gw.SecretKey, PathStyle: true}
	s := testserver.New(t, testserver.WithConfig(func(c *service.Config) { c.FilesDir, c.FilesS3 = "", &cfg }))
	bucket, err := files.NewS3(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	objects := func() []string {
		var keys []string
		if err := bucket.List(context.Background(), "", func(i files.Info) error { keys = append(keys, i.Key); return nil }); err != nil {
			t.Fatal(err)
		}
		return keys
	}
	p := s.NewProject(filesSchema)
	cover := pngOf(t, 12, 6, nil)
	body, ct := multipartBody(t, part{name: "title", content: []byte("In a bucket")}, part{name: "cover", file: "c.png", content: cover})
	url := s.Do("POST", "/v1/"+p.ID+"/books", p.Key, body, "Content-Type", ct).Must(t, 201).Data()["cover"].(map[string]any)["url"].(string)
	if got := objects(); len(got) != 1 || !strings.HasPrefix(got[0], p.ID+"/c_") {
		t.Fatalf("objects %v", got)
	}
	if dl := s.Do("GET", url, "", nil, "Range", "bytes=1-3").Must(t, 206); !bytes.Equal(dl.Raw, cover[1:4]) {
		t.Fatalf("a range from the bucket: %q", dl.Raw)
	}
	if th := s.Do("GET", url+"?thumb=6x6", "", nil).Must(t, 200); th.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("a thumbnail from the bucket: %v", th.Header)
	}
	up := s.Do("POST", "/v1/"+p.ID+"/books/files/scans?name=n.txt", p.Key, []byte("notes")).Must(t, 201).Data()
	s.API(p, "PATCH", "/books/1", map[string]any{"scans": []any{up["token"]}}).Must(t, 200)
	if got := objects(); len(got) != 4 { // the cover, its thumbnail, the upload and its copy
		t.Fatalf("objects %v", got)
	}
	// The record's files go with it; what is left is the thumbnail and
	// the upload the token stood for, which no row names (the sweep's).
	s.API(p, "DELETE", "/books/1", nil).Must(t, 200)
	left := objects()
	slices.Sort(left)
	if len(left) != 2 || left[0] != p.ID+"/"+up["name"].(string) || !strings.HasPrefix(left[1], p.ID+"/thumbs/6x6/c_") {
		t.Fatalf("left after the record's delete: %v", left)
	}
}
