//go:build bench

package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablesmith/tablesmith/internal/testpg"
	"github.com/tablesmith/tablesmith/internal/testserver"
)

// TestFiles measures issue 40 item 6 on one Caddy in this process with
// the module and its directory store: a file of BENCH_FILE_MIB MiB (2048
// by default) uploaded in a multipart create and downloaded again, beside
// a direct copy of the same bytes into a file of the same directory (and
// a direct read of it), and how much the process's resident memory rose
// during the upload (sampled every 20 ms; the client streams its body
// from a 1 MiB buffer in this same process). Run:
//
//	go test -tags bench -run TestFiles -v -timeout 20m ./bench/
func TestFiles(t *testing.T) {
	mib := int64(2048)
	if v := os.Getenv("BENCH_FILE_MIB"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		mib = n
	}
	size := mib << 20
	filesDir := t.TempDir()
	base := startFilesSite(t, filesDir, size)
	writer := testserver.New(t) // makes the project in the same database
	p := writer.NewProject(fmt.Sprintf(`{"tables": [{"name": "papers", "columns": [{"name": "title", "type": "text"},
		{"name": "blob", "type": "file", "max_size": %d}, {"name": "photo", "type": "file", "thumbnails": true}]}]}`, size))
	block := make([]byte, 1<<20)
	for i := range block {
		block[i] = byte(rand.IntN(256))
	}

	// Upload: a multipart create streamed from the block, through Caddy.
	debug.FreeOSMemory()
	sampler := startRSSSampler()
	upload, answer, status := postMultipart(t, base+"/v1/"+p.ID+"/papers", p.Key, block, size)
	before, peak := sampler.stop()
	if status != 201 {
		t.Fatalf("upload: %d %s", status, answer)
	}
	var created struct {
		Data struct {
			Blob struct {
				URL  string `json:"url"`
				Size int64  `json:"size"`
			} `json:"blob"`
		} `json:"data"`
	}
	if err := json.Unmarshal(answer, &created); err != nil || created.Data.Blob.Size != size {
		t.Fatalf("upload answer: %v %s", err, answer)
	}

	// The same bytes copied straight into a file of the same directory,
	// synced as the store syncs its uploads.
	began := time.Now()
	direct := filepath.Join(filesDir, "direct.bin")
	f, err := os.Create(direct)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, io.LimitReader(repeat(block), size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	copyTime := time.Since(began)

	// Download through Caddy, and the direct read of the copy.
	began = time.Now()
	dreq, _ := http.NewRequest("GET", base+created.Data.Blob.URL, nil)
	dreq.Header.Set("Authorization", "Bearer "+p.Key)
	dres, err := http.DefaultClient.Do(dreq)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.Copy(io.Discard, bufio.NewReaderSize(dres.Body, 1<<20))
	dres.Body.Close()
	download := time.Since(began)
	if got != size {
		t.Fatalf("downloaded %d of %d bytes", got, size)
	}
	began = time.Now()
	rf, err := os.Open(direct)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, bufio.NewReaderSize(rf, 1<<20))
	rf.Close()
	readTime := time.Since(began)

	// The strongest simple alternative over HTTP: a bare net/http server
	// that writes the multipart body's file into the same directory
	// (synced) and serves it back with http.ServeFile.
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := filepath.Join(filesDir, "bare.bin")
		if r.Method == http.MethodGet {
			http.ServeFile(w, r, path)
			return
		}
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		part, err := mr.NextPart()
		for err == nil && part.FileName() == "" {
			part, err = mr.NextPart() // the title field
		}
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		f, err := os.Create(path)
		if err == nil {
			_, err = io.Copy(f, part)
		}
		if err == nil {
			err = f.Sync()
		}
		f.Close()
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.WriteHeader(201)
	}))
	defer bare.Close()
	bareUpload, _, status := postMultipart(t, bare.URL, "", block, size)
	if status != 201 {
		t.Fatalf("bare upload: %d", status)
	}
	began = time.Now()
	bres, err := http.Get(bare.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, bufio.NewReaderSize(bres.Body, 1<<20))
	bres.Body.Close()
	bareDownload := time.Since(began)

	cold, cached := thumbnailLatency(t, base, p.ID, p.Key)

	rate := func(d time.Duration) float64 { return float64(size) / (1 << 20) / d.Seconds() }
	var b strings.Builder
	fmt.Fprintf(&b, "file of %d MiB, %s, GOMAXPROCS %d\n", mib, time.Now().UTC().Format("2006-01-02"), runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "upload through Caddy (multipart create)  %7.0f MiB/s  %6.1f s\n", rate(upload), upload.Seconds())
	fmt.Fprintf(&b, "direct copy into the same directory      %7.0f MiB/s  %6.1f s   ratio %.2f\n", rate(copyTime), copyTime.Seconds(), rate(upload)/rate(copyTime))
	fmt.Fprintf(&b, "upload to a bare net/http server         %7.0f MiB/s  %6.1f s   ratio %.2f\n", rate(bareUpload), bareUpload.Seconds(), rate(upload)/rate(bareUpload))
	fmt.Fprintf(&b, "download through Caddy                   %7.0f MiB/s  %6.1f s\n", rate(download), download.Seconds())
	fmt.Fprintf(&b, "download from the bare server (ServeFile) %6.0f MiB/s  %6.1f s   ratio %.2f\n", rate(bareDownload), bareDownload.Seconds(), rate(download)/rate(bareDownload))
	fmt.Fprintf(&b, "direct read of the same bytes            %7.0f MiB/s  %6.1f s   ratio %.2f\n", rate(readTime), readTime.Seconds(), rate(download)/rate(readTime))
	fmt.Fprintf(&b, "thumbnail 200x200 of a 3000x2000 JPEG: cold %.1f ms, cached p50 %.2f ms (of 50)\n",
		float64(cold.Microseconds())/1000, float64(cached.Microseconds())/1000)
	fmt.Fprintf(&b, "process RSS during the upload: %d MiB before, peak %d MiB, rise %d MiB (target ≤ 64)\n",
		before>>20, peak>>20, (peak-before)>>20)
	t.Log("\n" + b.String())
	if rise := peak - before; rise > 64<<20 {
		t.Errorf("the upload raised the process's RSS by %d MiB, more than 64", rise>>20)
	}
}

// postMultipart sends a multipart body with one file of size bytes (block
// over and over) to url, and answers how long it took, the answer and its
// status.
func postMultipart(t *testing.T, url, key string, block []byte, size int64) (time.Duration, []byte, int) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		_ = mw.WriteField("title", "big")
		fw, err := mw.CreateFormFile("blob", "big.bin")
		if err == nil {
			_, err = io.Copy(fw, io.LimitReader(repeat(block), size))
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest("POST", url, pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	began := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return time.Since(began), answer, res.StatusCode
}

// thumbnailLatency uploads a 3000x2000 JPEG and times its first
// 200x200 thumbnail (made: decoded, scaled, encoded, stored) and the
// median of 50 more (read from the store).
func thumbnailLatency(t *testing.T, base, project, key string) (cold, cached time.Duration) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3000, 2000))
	for x := range 3000 {
		for y := range 2000 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("photo", "photo.jpg")
	_, _ = fw.Write(jpg.Bytes())
	_ = mw.Close()
	req, _ := http.NewRequest("POST", base+"/v1/"+project+"/papers", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Data struct {
			Photo struct{ URL string } `json:"photo"`
		} `json:"data"`
	}
	_ = json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	get := func() time.Duration {
		req, _ := http.NewRequest("GET", base+created.Data.Photo.URL+"?thumb=200x200", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		began := time.Now()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("thumbnail: %d", res.StatusCode)
		}
		return time.Since(began)
	}
	cold = get()
	times := make([]time.Duration, 50)
	for i := range times {
		times[i] = get()
	}
	slices.Sort(times)
	return cold, times[len(times)/2]
}

// repeat reads block over and over.
func repeat(block []byte) io.Reader {
	return readerFunc(func(p []byte) (int, error) {
		n := 0
		for n < len(p) {
			n += copy(p[n:], block)
		}
		return n, nil
	})
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// startFilesSite runs the module in this process with its file store in
// dir, taking files up to maxFile bytes.
func startFilesSite(t *testing.T, dir string, maxFile int64) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	caddyfile := fmt.Sprintf(`{
	admin off
	tablesmith {
		database_url %q
		default_plan unlimited
		secret bench-secret
		files_dir %q
		max_file_size %d
	}
}
http://%s {
	tablesmith_api /v1/*
}
`, testpg.URL(t), dir, maxFile, addr)
	loadCaddyfile(t, caddyfile)
	return "http://" + addr
}
