package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config names a bucket of an S3-compatible store (AWS S3, MinIO,
// SeaweedFS, Cloudflare R2, versitygw): the Caddyfile's storage s3 block.
type S3Config struct {
	// Endpoint is the store's URL: https://s3.eu-west-1.amazonaws.com,
	// http://127.0.0.1:7070.
	Endpoint  string
	Bucket    string
	Region    string
	AccessKey string
	SecretKey string
	// PathStyle addresses the bucket in the path (endpoint/bucket/key)
	// rather than as a host name (bucket.endpoint/key): what most
	// self-hosted stores need.
	PathStyle bool
}

// s3PartSize is the part of a streamed upload held in memory at a time:
// an upload of unknown length goes up as a multipart upload of such
// parts, one after the other (S3's least part is 5 MiB).
const s3PartSize = 8 << 20

// S3 keeps objects in a bucket of an S3-compatible store, with
// minio-go. A PUT is atomic there (an object appears whole when its
// upload completes; a failed multipart upload is aborted), which is the
// Store's rule.
type S3 struct {
	client *minio.Client
	bucket string
}

// NewS3 connects to the store and checks that the bucket is there.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("storage s3: endpoint %q is not an http or https URL", cfg.Endpoint)
	}
	lookup := minio.BucketLookupDNS
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: u.Scheme == "https", Region: cfg.Region, BucketLookup: lookup})
	if err != nil {
		return nil, fmt.Errorf("storage s3: %w", err)
	}
	ok, err := client.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("storage s3: bucket %s at %s: %w", cfg.Bucket, cfg.Endpoint, err)
	}
	if !ok {
		return nil, fmt.Errorf("storage s3: there is no bucket %s at %s", cfg.Bucket, cfg.Endpoint)
	}
	return &S3{client: client, bucket: cfg.Bucket}, nil
}

// Put streams r into key as parts of s3PartSize.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	info, err := s.client.PutObject(ctx, s.bucket, key, contextReader{ctx, r}, -1,
		minio.PutObjectOptions{PartSize: s3PartSize, ContentType: "application/octet-stream"})
	return info.Size, err
}

// Open reads key; the object seeks by ranged GETs.
func (s *S3) Open(ctx context.Context, key string) (Object, error) {
	o, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, notFound(err)
	}
	st, err := o.Stat()
	if err != nil {
		o.Close()
		return nil, notFound(err)
	}
	return s3Object{Object: o, size: st.Size, modTime: st.LastModified}, nil
}

type s3Object struct {
	*minio.Object
	size    int64
	modTime time.Time
}

func (o s3Object) Size() int64        { return o.size }
func (o s3Object) ModTime() time.Time { return o.modTime }

// Delete removes keys; one that is not there is no error.
func (s *S3) Delete(ctx context.Context, keys ...string) error {
	var errs []error
	for _, key := range keys {
		if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil && !errors.Is(notFound(err), ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Copy copies from to to inside the store (no bytes through this node).
func (s *S3) Copy(ctx context.Context, from, to string) error {
	_, err := s.client.CopyObject(ctx, minio.CopyDestOptions{Bucket: s.bucket, Object: to}, minio.CopySrcOptions{Bucket: s.bucket, Object: from})
	return notFound(err)
}

// List calls fn for every object under prefix.
func (s *S3) List(ctx context.Context, prefix string, fn func(Info) error) error {
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			return o.Err
		}
		if err := fn(Info{Key: o.Key, Size: o.Size, ModTime: o.LastModified}); err != nil {
			return err
		}
	}
	return nil
}

// notFound maps the store's "no such key" to ErrNotFound.
func notFound(err error) error {
	if err == nil {
		return nil
	}
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return ErrNotFound
	}
	return err
}
