package backup_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/prometheus/client_golang/prometheus"

	"switchboard/backup"
	"switchboard/internal/testutil"
	"switchboard/store"
)

const (
	testKey    = "AKIDSWITCHBOARDTEST"
	testSecret = "s3cr3t-never-shown-anywhere"
)

// fakeS3 is an S3-compatible server in the test process (gofakes3, in memory). gofakes3 does
// not check signatures, so the server answers requests signed with another access key id the
// way S3 does: 403 InvalidAccessKeyId.
type fakeS3 struct {
	URL    string
	client *minio.Client // the operator's own view of the bucket, with good credentials
}

var credentialKey = regexp.MustCompile(`Credential=([^/]+)/`)

func newFakeS3(t *testing.T, buckets ...string) *fakeS3 {
	t.Helper()
	faker := gofakes3.New(s3mem.New())
	h := faker.Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if m := credentialKey.FindStringSubmatch(r.Header.Get("Authorization")); m == nil || m[1] != testKey {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			_ = xml.NewEncoder(w).Encode(struct {
				XMLName xml.Name `xml:"Error"`
				Code    string
				Message string
			}{Code: "InvalidAccessKeyId", Message: "The AWS Access Key Id you provided does not exist in our records."})
			return
		}
		if r.Header.Get("X-Amz-Content-Sha256") == "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" && r.URL.Query().Has("partNumber") {
			// gofakes3 decodes the chunked signed encoding of a whole-object PUT but not of an
			// upload part; S3 decodes both, so the part is decoded here.
			n, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64)
			if err != nil {
				http.Error(w, "bad decoded length", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(&awsChunkedReader{r: bufio.NewReader(r.Body)})
			r.ContentLength = n
			r.Header.Set("Content-Length", strconv.FormatInt(n, 10))
			r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	client, err := minio.New(strings.TrimPrefix(srv.URL, "http://"), &minio.Options{
		Creds: credentials.NewStaticV4(testKey, testSecret, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeS3{URL: srv.URL, client: client}
	for _, b := range buckets {
		f.makeBucket(t, b)
	}
	return f
}

func (f *fakeS3) makeBucket(t *testing.T, name string) {
	t.Helper()
	if err := f.client.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket %s: %v", name, err)
	}
}

// config is the backup configuration of url at this server, with good credentials.
func (f *fakeS3) config(url string) backup.Config {
	return backup.Config{URL: url, S3Endpoint: f.URL, AccessKey: testKey, SecretKey: testSecret}
}

// keys lists every key of bucket.
func (f *fakeS3) keys(t *testing.T, bucket string) []string {
	t.Helper()
	var out []string
	for o := range f.client.ListObjects(context.Background(), bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
		out = append(out, o.Key)
	}
	return out
}

// awsChunkedReader decodes the aws-chunked body of a streaming-signed request: chunks of
// "HEXSIZE;chunk-signature=SIG\r\nDATA\r\n", ended by a chunk of size 0.
type awsChunkedReader struct {
	r    *bufio.Reader
	left int64
	done bool
}

func (c *awsChunkedReader) Read(p []byte) (int, error) {
	for c.left == 0 {
		if c.done {
			return 0, io.EOF
		}
		line, err := c.r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(size, 16, 64)
		if err != nil {
			return 0, fmt.Errorf("aws-chunked: bad chunk header %q", line)
		}
		if n == 0 {
			c.done = true
			continue
		}
		c.left = n
	}
	n, err := c.r.Read(p[:min(int64(len(p)), c.left)])
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		_, err = c.r.Discard(2) // the CRLF after the data
	}
	return n, err
}

// newStore opens a real database in a temporary directory with one workspace named ws.
func newStore(t *testing.T, ws string) (*store.Store, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "switchboard.db")
	s, err := store.Open(p, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.CreateWorkspace(ws); err != nil {
		t.Fatal(err)
	}
	return s, p
}

// newClock is a clock a test moves by hand, stopped at a fixed hour.
func newClock() *testutil.Clock {
	return testutil.NewClock(time.Date(2026, 11, 25, 17, 45, 0, 0, time.UTC))
}

// metric reads one metric of reg.
func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("metric %s not registered", name)
	return 0
}

// workspaceNames opens the database at p read-only and returns its workspaces' names.
func workspaceNames(t *testing.T, p string) []string {
	t.Helper()
	s, err := store.Open(p, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open restored database: %v", err)
	}
	defer s.Close()
	wss, err := s.Workspaces()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range wss {
		names = append(names, w.Name)
	}
	return names
}

// copyDB writes a copy of s to dst, as an existing database a restore must not harm, and
// returns its bytes.
func copyDB(t *testing.T, s *store.Store, dst string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.Backup(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// assertUntouched checks that the database at p still holds want and that the refused restore
// left no temporary file in its directory.
func assertUntouched(t *testing.T, p string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("the existing database is gone: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the existing database changed")
	}
	entries, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(p) {
			t.Errorf("a refused restore left %s behind", e.Name())
		}
	}
}
