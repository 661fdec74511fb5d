package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"time"

	_ "modernc.org/sqlite"
)

// ---- HTTP ----

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitReady(url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("the server did not become ready in 60 s")
}

func newClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
}

type apiClient struct {
	http            *http.Client
	base, token, ws string
}

func (a *apiClient) do(action string, body map[string]any) (int, []byte, error) {
	full := map[string]any{"id": a.ws, "developerProvider": "zapier"} // body is shared by goroutines
	for k, v := range body {
		full[k] = v
	}
	data, err := json.Marshal(full)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequest(http.MethodPost, a.base+action, bytes.NewReader(data))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := a.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	return res.StatusCode, out, err
}

// post calls action and wants status (any 2xx when 0).
func (a *apiClient) post(action string, body map[string]any, want int) error {
	status, out, err := a.do(action, body)
	if err != nil {
		return err
	}
	if (want == 0 && status/100 != 2) || (want != 0 && status != want) {
		return fmt.Errorf("%s: status %d: %s", action, status, out)
	}
	return nil
}

func (a *apiClient) search(q string) (int, error) {
	status, out, err := a.do("find-contact-action", map[string]any{"searchText": q})
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("search %q: status %d: %s", q, status, out)
	}
	var res []json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		return 0, err
	}
	return len(res), nil
}

// bareHandler is the baseline: a plain net/http handler that decodes a JSON body and answers a
// conversation-shaped JSON object, with nothing else — as lean as a JSON handler can be, so
// that the ratio is not flattered by a slow ceiling: the body read whole into a pooled buffer,
// decoded into a struct (no map), the answer marshalled from a struct and written in one call,
// the header set without canonicalising its name.
func bareHandler(w http.ResponseWriter, r *http.Request) {
	buf := bareBufs.Get().(*bytes.Buffer)
	defer bareBufs.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, 1<<20)); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	var in struct {
		ID   string `json:"id"`
		From string `json:"from"`
		To   string `json:"to"`
	}
	if err := json.Unmarshal(buf.Bytes(), &in); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	out, err := json.Marshal(struct {
		From        string `json:"from"`
		ID          string `json:"id"`
		To          string `json:"to"`
		WorkspaceID string `json:"workspaceId"`
	}{in.From, "01J00000000000000000000000", in.To, in.ID})
	if err != nil {
		http.Error(w, "encode", http.StatusInternalServerError)
		return
	}
	w.Header()["Content-Type"] = bareContentType
	_, _ = w.Write(out)
}

var (
	bareBufs        = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	bareContentType = []string{"application/json; charset=utf-8"}
)

// startBare starts this program again as the bare baseline server, in its own process as the
// Switchboard server is, and returns its URL and a function that stops it.
func startBare() (string, func(), error) {
	addr, err := freeAddr()
	if err != nil {
		return "", nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(self, "-serve-bare", addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr, stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("bare server: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
