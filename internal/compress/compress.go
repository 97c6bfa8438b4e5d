// Package compress compresses whole answer bodies for the generated API.
//
// The module compresses its own answers instead of leaving it to Caddy's
// encode handler in front of it: encode wraps every response of a client
// that accepts compression, even the small ones it then sends as they are,
// which cost a GET by id more than the rest of Tablesmith's work (see
// bench/RESULTS.md). Here the body is complete before anything is written,
// so a small one goes out untouched and a large one is compressed in one
// call.
package compress

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// MinSize is the smallest body worth compressing: below it the encoded
// headers and frames save little or nothing.
const MinSize = 1024

// Encodings this package produces, as Content-Encoding names them.
const (
	Zstd = "zstd"
	Gzip = "gzip"
)

// Negotiate picks the encoding for an Accept-Encoding header value: the
// client's most preferred one of zstd and gzip (zstd on a tie), or ""
// when it accepts neither. "*" stands for any encoding not named; q=0
// refuses one.
func Negotiate(accept string) string {
	if accept == "" {
		return ""
	}
	qZstd, qGzip, qAny := -1.0, -1.0, -1.0
	for _, part := range strings.Split(accept, ",") {
		name, q := parseCoding(part)
		switch name {
		case Zstd:
			qZstd = q
		case Gzip, "x-gzip":
			qGzip = q
		case "*":
			qAny = q
		}
	}
	if qZstd < 0 {
		qZstd = qAny
	}
	if qGzip < 0 {
		qGzip = qAny
	}
	switch {
	case qZstd > 0 && qZstd >= qGzip:
		return Zstd
	case qGzip > 0:
		return Gzip
	}
	return ""
}

// parseCoding reads "name;q=0.5" (q defaults to 1; a malformed q is 0).
func parseCoding(part string) (string, float64) {
	name, params, _ := strings.Cut(part, ";")
	name = strings.ToLower(strings.TrimSpace(name))
	q := 1.0
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || f < 0 || f > 1 {
				f = 0
			}
			q = f
		}
	}
	return name, q
}

// zstdEncoder is shared: EncodeAll may be called concurrently.
var zstdEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))

type gzipState struct {
	w   *gzip.Writer
	buf bytes.Buffer
}

var gzipPool = sync.Pool{New: func() any {
	s := &gzipState{}
	s.w, _ = gzip.NewWriterLevel(&s.buf, gzip.DefaultCompression)
	return s
}}

// Encode appends body compressed with enc (Zstd or Gzip) to dst.
func Encode(enc string, dst, body []byte) []byte {
	if enc == Zstd {
		return zstdEncoder.EncodeAll(body, dst)
	}
	s := gzipPool.Get().(*gzipState)
	defer gzipPool.Put(s)
	s.buf.Reset()
	s.w.Reset(&s.buf)
	_, _ = s.w.Write(body)
	_ = s.w.Close()
	return append(dst, s.buf.Bytes()...)
}
