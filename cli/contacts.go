package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"switchboard/store"
)

// adminExportContacts writes the workspace's contacts as CSV to stdout: directly when no server
// holds the file, else through the running server (like backup).
func adminExportContacts(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	if err := a.fs.Parse(args); err != nil {
		return err
	}
	if err := required("workspace", *ws); err != nil {
		return err
	}
	s, err := store.Open(dbPath(*a.data), store.Options{Timeout: 200 * time.Millisecond, ReadOnly: true})
	if err == nil {
		defer s.Close()
		if _, err := s.Workspace(*ws); err != nil {
			return err
		}
		return s.WriteContactsCSV(a.stdout, *ws, store.ContactFilter{}, nil)
	}
	if !errors.Is(err, store.ErrLocked) {
		return err
	}
	resp, err := serverCall(*a.data, http.MethodGet, "/admin/contacts/export?workspace="+*ws, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return serverRefusal("export", resp)
	}
	_, err = io.Copy(a.stdout, resp.Body)
	return err
}

// adminImportContactsAny imports a CSV: directly when no server holds the file, else through
// the running server, which imports it while it serves.
func adminImportContactsAny(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	if err := a.fs.Parse(args); err != nil {
		return err
	}
	if err := required("workspace", *ws); err != nil {
		return err
	}
	if a.fs.NArg() != 1 {
		return fmt.Errorf("give exactly one CSV file after the flags")
	}
	f, err := os.Open(a.fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	var rep store.ImportReport
	s, err := openStore(*a.data, store.Options{Timeout: 200 * time.Millisecond})
	switch {
	case err == nil:
		defer s.Close()
		// An import is a batch job that allocates a little per row and keeps little: a higher
		// collection target trades some memory for fewer collections.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		start := time.Now()
		rep, err = s.ImportContacts(*ws, f, func(p store.ImportProgress) {
			fmt.Fprintf(a.stderr, "\rimported %d rows (%s)", p.Rows, time.Since(start).Round(time.Second))
		})
		fmt.Fprintln(a.stderr)
		if err != nil {
			return err
		}
	case errors.Is(err, store.ErrLocked):
		fmt.Fprintln(a.stderr, "a server holds the file: importing through it")
		resp, err := serverCall(*a.data, http.MethodPost, "/admin/contacts/import?workspace="+*ws, f)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return serverRefusal("import", resp)
		}
		if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
			return fmt.Errorf("read the server's report: %w", err)
		}
	default:
		return err
	}
	fmt.Fprintf(a.stdout, "imported %d, updated %d, rejected %d\n", rep.Imported, rep.Updated, rep.Rejected)
	for _, e := range rep.Errors {
		fmt.Fprintf(a.stdout, "line %d: %s\n", e.Line, e.Reason)
	}
	return nil
}

func serverRefusal(what string, resp *http.Response) error {
	var e struct {
		Error string `json:"error"`
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return fmt.Errorf("the running server refused the %s: %s", what, e.Error)
	}
	return fmt.Errorf("the running server refused the %s: %s", what, resp.Status)
}

// serverCall calls the running server's loopback admin endpoint path with the backup token of
// DIR/server.json, as backup does: no proxy, no redirects, from the loopback address.
func serverCall(dataDir, method, path string, body io.Reader) (*http.Response, error) {
	raw, err := os.ReadFile(serverInfoPath(dataDir))
	if err != nil {
		return nil, fmt.Errorf("a server holds %s but its %s cannot be read: %w", dbPath(dataDir), serverInfoPath(dataDir), err)
	}
	var info serverInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return nil, fmt.Errorf("%s: %w", serverInfoPath(dataDir), err)
	}
	host, port, err := net.SplitHostPort(info.Addr)
	if err != nil {
		return nil, fmt.Errorf("%s: bad address %q", serverInfoPath(dataDir), info.Addr)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	req, err := http.NewRequest(method, "http://"+net.JoinHostPort(host, port)+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+info.BackupToken)
	if body != nil {
		req.Header.Set("Content-Type", "text/csv")
	}
	client := loopbackClient(host)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reach the running server: %w", err)
	}
	return resp, nil
}
