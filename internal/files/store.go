// Package files keeps the bytes of the files that file and files columns
// hold (docs/files.md): a Store puts, opens, lists and deletes objects
// under keys "<project>/<name>"; Intake reads a multipart/form-data write,
// storing each file part as it streams; Sweep removes the objects no row
// names any more. The row holds only what the file is (schema.StoredFile).
package files

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotFound is an object the store does not hold.
var ErrNotFound = errors.New("files: no such object")

// Object is a stored file opened for reading: seekable, so that a
// download can serve byte ranges.
type Object interface {
	io.ReadSeekCloser
	Size() int64
	ModTime() time.Time
}

// Info is one object of a listing.
type Info struct {
	Key     string
	Size    int64
	ModTime time.Time
}

// Store holds the objects. Put makes an object appear whole or not at
// all: a failed or cut upload leaves nothing under its key. Delete of a
// key that is not there is no error.
type Store interface {
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	Open(ctx context.Context, key string) (Object, error)
	Delete(ctx context.Context, keys ...string) error
	// Copy makes to hold what from holds (an upload token's use: each
	// row gets its own object).
	Copy(ctx context.Context, from, to string) error
	// List calls fn for every object whose key starts with prefix.
	List(ctx context.Context, prefix string, fn func(Info) error) error
}

// Key is the object key of a project's stored file.
func Key(project, name string) string { return project + "/" + name }

// Local keeps objects as files under a directory: the default store, so
// that a single node (make run) needs nothing more. A key's segments are
// directories; a file is written under a temporary name, synced and
// renamed into place.
type Local struct {
	Root string
}

// NewLocal makes the directory if it is missing.
func NewLocal(root string) (*Local, error) {
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, err
	}
	return &Local{Root: root}, nil
}

// path is where key lives; keys come from Key with names the server
// made, and a key that would leave the root is refused all the same.
func (l *Local) path(key string) (string, error) {
	if key == "" || strings.Contains(key, "..") || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") {
		return "", ErrNotFound
	}
	return filepath.Join(l.Root, filepath.FromSlash(key)), nil
}

// Put writes r under key: into a temporary file beside it, synced before
// the rename, so that a crash leaves either the whole object or none.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	p, err := l.path(key)
	if err != nil {
		return 0, err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(dir, ".upload-*")
	if err != nil {
		return 0, err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, contextReader{ctx, r})
	if err != nil {
		return n, err
	}
	if err := tmp.Sync(); err != nil {
		return n, err
	}
	if err := tmp.Close(); err != nil {
		return n, err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return n, err
	}
	done = true
	return n, syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Open opens key for reading.
func (l *Local) Open(_ context.Context, key string) (Object, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return localObject{File: f, info: st}, nil
}

type localObject struct {
	*os.File
	info fs.FileInfo
}

func (o localObject) Size() int64        { return o.info.Size() }
func (o localObject) ModTime() time.Time { return o.info.ModTime() }

// Copy links to to from's file (no bytes copied; both names are the
// same file until one is removed), or copies it where links fail.
func (l *Local) Copy(ctx context.Context, from, to string) error {
	src, err := l.path(from)
	if err != nil {
		return err
	}
	dst, err := l.path(to)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return err
	}
	if err := os.Link(src, dst); err == nil {
		return syncDir(filepath.Dir(dst))
	} else if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	o, err := l.Open(ctx, from)
	if err != nil {
		return err
	}
	defer o.Close()
	_, err = l.Put(ctx, to, o)
	return err
}

// Delete removes keys; one that is not there is no error.
func (l *Local) Delete(_ context.Context, keys ...string) error {
	var errs []error
	for _, key := range keys {
		p, err := l.path(key)
		if err != nil {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// List walks the objects under prefix (a project's "<project>/"). An
// upload still being written shows under its temporary name
// (".upload-…"), its time its last write: a sweep removes one a crash
// left once it is old enough, never one that is still growing.
func (l *Local) List(ctx context.Context, prefix string, fn func(Info) error) error {
	dir := l.Root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		p, err := l.path(prefix[:i])
		if err != nil {
			return nil
		}
		dir = p
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(l.Root, path)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed while walking
		}
		return fn(Info{Key: key, Size: info.Size(), ModTime: info.ModTime()})
	})
	return err
}

// contextReader stops a copy when its context ends (a client that went
// away mid-upload).
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
