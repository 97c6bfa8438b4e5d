package caddymodule_test

import (
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testcaddy"
	"github.com/tablesmith/tablesmith/internal/testpg"
)

// filesCaddyfile keeps the node's files in {$FILES_DIR} and sweeps a
// file no row names once it is a second old.
const filesCaddyfile = `{
	admin off
	persist_config off
	auto_https off
	tablesmith {
		database_url {env.TABLESMITH_DATABASE_URL}
		secret files-crash-secret
		default_plan unlimited
		files_dir {$FILES_DIR}
		files_grace 1s
	}
}

http://127.0.0.1:{$NODE_PORT} {
	handle /v1/* {
		tablesmith_api
	}
	handle /api/* {
		tablesmith_platform
	}
}
`

// TestAKilledUploadLeavesNoRowAndTheSweepTakesItsFile (issue 40.5): a
// node killed with SIGKILL while a multipart create streams its file, and
// another killed after the file is stored but before the record's write,
// leave no record; once a node runs again its first sweep removes what
// they stored (a half-written temporary file, a whole file no row names),
// and a create after that works.
func TestAKilledUploadLeavesNoRowAndTheSweepTakesItsFile(t *testing.T) {
	t.Parallel()
	bin := testcaddy.Binary(t)
	dbURL := testpg.NewDatabase(t)
	home := t.TempDir()
	filesDir := filepath.Join(home, "files")
	config := filepath.Join(home, "Caddyfile")
	if err := os.WriteFile(config, []byte(filesCaddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	port := testcaddy.FreePort(t)
	start := func() *testcaddy.Process {
		return testcaddy.StartNode(t, bin, config, home, dbURL, port, "FILES_DIR="+filesDir)
	}
	node := start()
	_, _, project, key := testcaddy.Published(t, node.Base, `{"tables": [{"name": "papers", "columns": [
		{"name": "title", "type": "text", "required": true}, {"name": "blob", "type": "file"}]}]}`)

	// crashDuring starts a create whose body stops where stall says (in
	// the file, or after it), waits until the node has stored what it
	// will, and kills the node.
	crashDuring := func(inFile bool, stored func() bool) {
		t.Helper()
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		go func() {
			fw, _ := mw.CreateFormFile("blob", "big.bin")
			_, _ = fw.Write([]byte(strings.Repeat("x", 1<<20)))
			if !inFile {
				// The file part ends when the next part begins; the
				// title never comes.
				_, _ = mw.CreateFormField("title")
			}
			// The body stays open until the node dies.
		}()
		req, _ := http.NewRequest("POST", node.Base+"/v1/"+project+"/papers", pr)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+key)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
				t.Errorf("the create was answered %d before the node was killed", res.StatusCode)
			}
		}()
		deadline := time.Now().Add(30 * time.Second)
		for !stored() {
			if time.Now().After(deadline) {
				t.Fatalf("the node stored nothing of the upload in 30 s: %v", listFiles(t, filesDir))
			}
			time.Sleep(20 * time.Millisecond)
		}
		node.Kill(t)
		pw.Close()
		<-done
	}
	hasTemp := func() bool { return strings.Contains(strings.Join(listFiles(t, filesDir), " "), ".upload-") }
	hasWhole := func() bool {
		for _, f := range listFiles(t, filesDir) {
			if strings.HasPrefix(f, "big_") {
				return true
			}
		}
		return false
	}

	noRecords := func() {
		t.Helper()
		if n := len(testcaddy.MustCall(t, 200, "GET", node.Base+"/v1/"+project+"/papers", key, nil).Body["data"].([]any)); n != 0 {
			t.Fatalf("%d records after a crash, want none", n)
		}
	}
	swept := func(what string) {
		t.Helper()
		// A node's first sweep runs 2 s after it starts; the rest is
		// margin for a loaded machine.
		deadline := time.Now().Add(30 * time.Second)
		for len(listFiles(t, filesDir)) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("after %s the sweep left %v", what, listFiles(t, filesDir))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	crashDuring(true, hasTemp)
	node = start()
	noRecords()
	swept("a crash in the middle of a file")

	crashDuring(false, hasWhole)
	node = start()
	noRecords()
	swept("a crash after a file was stored, before its record was written")
	testcaddy.MustCall(t, 201, "POST", node.Base+"/v1/"+project+"/papers", key, map[string]any{"title": "after"})
}

// listFiles names the files under dir.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, d.Name())
		}
		return nil
	})
	return names
}
