package main

import (
	"fmt"
	"syscall"
	"time"

	"github.com/tablesmith/tablesmith/openapi"
	"github.com/tablesmith/tablesmith/schema"
)

// cache is the node's document cache, as internal/service/wire_docs.go
// makes it.
var cache = openapi.NewCache(openapi.DefaultCacheBytes)

func newDocument(c *schema.Compiled, id string, version int) *openapi.Document {
	return openapi.NewIn(cache, c, openapi.Options{ProjectID: id, Version: version})
}

func renderSize(d *openapi.Document, yaml bool) (int, error) {
	r, err := d.Rendered(yaml)
	if err != nil {
		return 0, err
	}
	return r.Size(d.BasePath()), nil
}

func cacheSize() string { return fmt.Sprintf("%.1f MiB", float64(cache.Size())/(1<<20)) }

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
