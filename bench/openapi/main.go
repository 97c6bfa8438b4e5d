// Command openapi measures the OpenAPI document of the largest schema the
// publish-time limits allow (schema.MaxTables tables of schema.MaxColumns
// columns, the schema document filled to schema.MaxDocumentBytes with
// column descriptions, every table referencing the one before).
//
//	go run ./bench/openapi -mode render     # one project: time, peak memory, size
//	go run ./bench/openapi -mode projects   # 50 projects in turn through the handler
//
// Each mode is its own process so that VmHWM (peak RSS) is the mode's own.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablesmith/tablesmith/internal/apihttp"
	"github.com/tablesmith/tablesmith/internal/registry"
	"github.com/tablesmith/tablesmith/internal/swaggerui"
	"github.com/tablesmith/tablesmith/schema"
	"github.com/tablesmith/tablesmith/translate"
)

func main() {
	mode := flag.String("mode", "render", "render or projects")
	n := flag.Int("n", 50, "projects (mode projects)")
	memprofile := flag.String("memprofile", "", "write an allocation profile here (mode render)")
	flag.Parse()
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			f, err := os.Create(*memprofile)
			if err != nil {
				log.Fatal(err)
			}
			defer f.Close()
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
		}()
	}
	doc := largestSchema()
	raw, _ := json.Marshal(doc)
	if p := schema.Validate(doc); len(p) > 0 {
		log.Fatalf("the bench schema is not valid: %v", p)
	}
	c, err := schema.Compile(doc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("schema: %d tables x %d columns, %d bytes as JSON\n", len(doc.Tables), len(doc.Tables[0].Columns), len(raw))
	switch *mode {
	case "render":
		render(c)
	case "projects":
		projects(c, *n)
	default:
		log.Fatalf("unknown mode %q", *mode)
	}
}

// largestSchema is MaxTables tables of MaxColumns columns of every type,
// each table referencing the previous one, with descriptions that bring
// the document just under MaxDocumentBytes.
func largestSchema() schema.Document {
	kinds := []schema.Column{
		{Type: schema.TypeText}, {Type: schema.TypeInteger, Min: ptr(0.0)}, {Type: schema.TypeNumber},
		{Type: schema.TypeBoolean, Required: true}, {Type: schema.TypeTimestamp}, {Type: schema.TypeDate},
		{Type: schema.TypeUUID}, {Type: schema.TypeEmail}, {Type: schema.TypeURL},
		{Type: schema.TypeEnum, Values: []string{"draft", "published", "archived"}}, {Type: schema.TypeDecimal},
		{Type: schema.TypeText, MaxLength: ptr(200), Searchable: true},
	}
	build := func(desc string) schema.Document {
		d := schema.Document{}
		for i := 0; i < schema.MaxTables; i++ {
			t := schema.Table{Name: fmt.Sprintf("table_%03d", i)}
			for j := 0; j < schema.MaxColumns; j++ {
				col := kinds[j%len(kinds)]
				col.Name = fmt.Sprintf("column_%03d", j)
				col.Description = desc
				if j == 0 && i > 0 {
					col = schema.Column{Name: "parent_id", Type: schema.TypeInteger,
						References: &schema.Reference{Table: fmt.Sprintf("table_%03d", i-1), OnDelete: schema.OnDeleteSetNull}}
				}
				t.Columns = append(t.Columns, col)
			}
			d.Tables = append(d.Tables, t)
		}
		return d
	}
	bare, _ := json.Marshal(build(""))
	room := (schema.MaxDocumentBytes-len(bare)-1024)/(schema.MaxTables*schema.MaxColumns) - len(`,"description":""`)
	if room < 0 {
		room = 0
	}
	return build(strings.Repeat("d", room))
}

func ptr[T any](v T) *T { return &v }

// peak samples the heap in use until stop is called and returns the
// highest reading above the one at start.
func peak() (stop func() uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	var top atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > top.Load() {
				top.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		if t := top.Load(); t > base {
			return t - base
		}
		return 0
	}
}

func render(c *schema.Compiled) {
	for _, yaml := range []bool{false, true} {
		stop := peak()
		cpu0 := cpuTime()
		start := time.Now()
		d := newDocument(c, "p00000000000", 1)
		size, err := renderSize(d, yaml)
		if err != nil {
			log.Fatal(err)
		}
		wall, cpu := time.Since(start), cpuTime()-cpu0
		extra := stop()
		format := map[bool]string{false: "json", true: "yaml"}[yaml]
		fmt.Printf("render %s: %d bytes, %v wall, %v CPU, %.1f MiB extra peak heap\n",
			format, size, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(extra)/(1<<20))
	}
	fmt.Printf("peak RSS (VmHWM): %s\n", vmHWM())
}

// projects serves n projects, each with the largest schema, in turn
// through the generated API's handler, registry and docs routes with one
// document cache, as the service wires them (internal/service/wire_docs.go).
func projects(c *schema.Compiled, n int) {
	reg := registry.New(func(ctx context.Context, id string) (*registry.Entry, error) {
		e := &registry.Entry{ProjectID: id, Version: 1, Published: &translate.Published{Compiled: c}}
		e.OpenAPI = newDocument(c, id, 1)
		return e, nil
	})
	h := apihttp.New(apihttp.Deps{Registry: reg, Routes: apihttp.DocsRoutes(swaggerui.New(swaggerui.Embedded()), nil)})
	start := time.Now()
	var total int64
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("p%011d", i)
		for _, f := range []string{"openapi.json", "openapi.yaml"} {
			w := &discard{header: http.Header{}}
			h.ServeHTTP(w, httptest.NewRequest("GET", "/v1/"+id+"/"+f, nil))
			if w.status != 200 {
				log.Fatalf("%s %s: status %d", id, f, w.status)
			}
			total += w.n
		}
	}
	fmt.Printf("%d projects, json and yaml each: %d bytes served in %v; cache holds %s\n",
		n, total, time.Since(start).Round(time.Millisecond), cacheSize())
	fmt.Printf("peak RSS (VmHWM): %s\n", vmHWM())
}

type discard struct {
	header http.Header
	status int
	n      int64
}

func (d *discard) Header() http.Header { return d.header }
func (d *discard) WriteHeader(s int)   { d.status = s }
func (d *discard) Write(b []byte) (int, error) {
	if d.status == 0 {
		d.status = 200
	}
	d.n += int64(len(b))
	return len(b), nil
}

var _ io.Writer = (*discard)(nil)

func vmHWM() string {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:"))
		}
	}
	return "unknown"
}
