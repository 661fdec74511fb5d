package backup

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// s3PartSize is the size of one part of a streamed upload: the client holds one part in memory,
// so memory stays at this size whatever the size of the database; 10,000 parts allow 160 GiB.
const s3PartSize = 16 << 20

// S3Target keeps backups under a key prefix of a bucket of any S3-compatible store. A backup's
// checksum is its object's user metadata "sha256".
type S3Target struct {
	client         *minio.Client
	bucket, prefix string
	where          string
}

// NewS3Target returns the target for bucket/prefix at cfg's endpoint (AWS when empty).
func NewS3Target(cfg Config, bucket, prefix string) (*S3Target, error) {
	host, secure := "s3.amazonaws.com", true
	if cfg.S3Endpoint != "" {
		u, err := url.Parse(cfg.S3Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("-backup-s3-endpoint %q: want a URL such as https://s3.example.com or http://127.0.0.1:9000", cfg.S3Endpoint)
		}
		host, secure = u.Host, u.Scheme == "https"
	}
	region := cfg.S3Region
	if region == "" {
		region = "us-east-1"
	}
	client, err := minio.New(host, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken),
		Secure: secure,
		Region: region,
	})
	if err != nil {
		return nil, fmt.Errorf("S3 client for %s: %w", host, err)
	}
	where := "s3://" + bucket + "/" + prefix
	if cfg.S3Endpoint != "" {
		where += " at " + strings.TrimRight(cfg.S3Endpoint, "/")
	}
	return &S3Target{client: client, bucket: bucket, prefix: prefix, where: where}, nil
}

func (s *S3Target) String() string { return s.where }

func (s *S3Target) key(name string) string {
	if s.prefix == "" {
		return name
	}
	return s.prefix + "/" + name
}

// Put streams r as a multipart upload, then records the checksum by copying the object onto
// itself with its metadata replaced (the checksum is known only once the stream has ended). An
// object whose checksum could not be recorded is removed.
func (s *S3Target) Put(ctx context.Context, name string, r io.Reader, sum func() string) (int64, error) {
	key := s.key(name)
	info, err := s.client.PutObject(ctx, s.bucket, key, r, -1, minio.PutObjectOptions{
		ContentType: "application/gzip", PartSize: s3PartSize,
	})
	if err != nil {
		return 0, fmt.Errorf("upload %s to %s: %w", name, s, err)
	}
	_, err = s.client.CopyObject(ctx,
		minio.CopyDestOptions{Bucket: s.bucket, Object: key, ReplaceMetadata: true, ContentType: "application/gzip",
			UserMetadata: map[string]string{"sha256": sum()}},
		minio.CopySrcOptions{Bucket: s.bucket, Object: key})
	if err != nil {
		_ = s.client.RemoveObject(context.WithoutCancel(ctx), s.bucket, key, minio.RemoveObjectOptions{})
		return 0, fmt.Errorf("record the checksum of %s at %s: %w", name, s, err)
	}
	return info.Size, nil
}

func (s *S3Target) List(ctx context.Context) ([]Object, error) {
	prefix := ""
	if s.prefix != "" {
		prefix = s.prefix + "/"
	}
	var out []Object
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: prefix}) {
		if o.Err != nil {
			return nil, fmt.Errorf("list %s: %w", s, o.Err)
		}
		name := strings.TrimPrefix(o.Key, prefix)
		t, ok := ParseName(name)
		if !ok {
			continue
		}
		out = append(out, Object{Name: name, Size: o.Size, Time: t})
	}
	sortNewestFirst(out)
	return out, nil
}

func (s *S3Target) Open(ctx context.Context, name string) (io.ReadCloser, Object, error) {
	key := s.key(name)
	st, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		if code := minio.ToErrorResponse(err).Code; code == minio.NoSuchKey || code == minio.NoSuchBucket {
			return nil, Object{}, fmt.Errorf("s3://%s/%s: %w", s.bucket, key, ErrNotFound)
		}
		return nil, Object{}, fmt.Errorf("s3://%s/%s: %w", s.bucket, key, err)
	}
	obj := Object{Name: path.Base(key), Size: st.Size, Time: st.LastModified.UTC()}
	if t, ok := ParseName(obj.Name); ok {
		obj.Time = t
	}
	for k, v := range st.UserMetadata {
		if strings.EqualFold(k, "sha256") || strings.EqualFold(k, "x-amz-meta-sha256") {
			obj.SHA256 = strings.ToLower(strings.TrimSpace(v))
		}
	}
	// The object is read as it was when stat'ed: a backup replaced meanwhile fails the read
	// rather than mixing two versions.
	opts := minio.GetObjectOptions{}
	if err := opts.SetMatchETag(st.ETag); err != nil {
		return nil, Object{}, err
	}
	body, err := s.client.GetObject(ctx, s.bucket, key, opts)
	if err != nil {
		return nil, Object{}, fmt.Errorf("s3://%s/%s: %w", s.bucket, key, err)
	}
	return body, obj, nil
}

func (s *S3Target) Delete(ctx context.Context, name string) error {
	if err := s.client.RemoveObject(ctx, s.bucket, s.key(name), minio.RemoveObjectOptions{}); err != nil {
		return fmt.Errorf("delete %s at %s: %w", name, s, err)
	}
	return nil
}
