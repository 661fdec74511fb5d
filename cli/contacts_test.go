package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"switchboard/internal/testutil"
)

// import-contacts and export-contacts work both while a server holds the file (through it) and
// without one (on the file), and the export reads back as the documented columns.
func TestImportAndExportContactsWithAndWithoutServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary and a server")
	}
	f := newFixture(t)
	d := "-data=" + f.data
	file := filepath.Join(t.TempDir(), "contacts.csv")
	os.WriteFile(file, []byte("firstName,phone,groups,plan\nAna,+14155550001,VIP;Staff,gold\nBo,bad,,\n"), 0o600)

	addr := "127.0.0.1:" + testutil.FreePort(t)
	srv := startServer(t, addr, nil, "-addr", addr, d, "-log-requests=false")
	r := sb(t, nil, "admin", "import-contacts", d, "--workspace", f.ws, file)
	if r.code != 0 || !strings.Contains(r.stdout, "imported 1, updated 0, rejected 1") || !strings.Contains(r.stdout, "line 3") {
		t.Fatalf("import through the server: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = sb(t, nil, "admin", "export-contacts", d, "--workspace", f.ws)
	if r.code != 0 {
		t.Fatalf("export through the server: exit %d, stderr %q", r.code, r.stderr)
	}
	online := r.stdout
	fails(t, "workspace not found", "admin", "export-contacts", d, "--workspace", "01J00000000000000000000000")
	if code := srv.stop(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	r = sb(t, nil, "admin", "export-contacts", d, "--workspace", f.ws)
	if r.code != 0 || r.stdout != online {
		t.Fatalf("export on the file: exit %d, stdout %q, want the server's %q (stderr %q)", r.code, r.stdout, online, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(online)).ReadAll()
	if err != nil {
		t.Fatalf("the export is not CSV: %v", err)
	}
	want := []string{"id", "firstName", "lastName", "phone", "email", "company", "timeZone", "groups", "plan",
		"optedOut", "optOutReason", "optedOutAt", "consentStatus", "consentAt", "consentSource", "createdAt"}
	if len(rows) != 2 || !slices.Equal(rows[0], want) {
		t.Fatalf("export rows %q, want the header %q and one contact", rows, want)
	}
	row := map[string]string{}
	for i, h := range rows[0] {
		row[h] = rows[1][i]
	}
	if row["firstName"] != "Ana" || row["phone"] != "+14155550001" || row["groups"] != "Staff;VIP" && row["groups"] != "VIP;Staff" ||
		row["plan"] != "gold" || row["optedOut"] != "false" || row["createdAt"] == "" {
		t.Errorf("exported row %v", row)
	}
}
