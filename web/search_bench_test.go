package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"switchboard/store"
)

// BenchmarkFindContact1M is find-contact through the real handler, in process, on a copy of a
// 1M-contact database (SWITCHBOARD_BENCH_1M_DB, as the store's 1M benchmarks keep it; the
// benchmark adds a token to the file), beside the store's search alone with the same queries:
// the difference is the HTTP layer's share of a search (decode, checks, encode). CPU per search
// is reported, which a shared machine blurs less than the wall clock.
//
//	SWITCHBOARD_BENCH_1M_DB=FILE go test ./web -run '^$' -bench FindContact1M
func BenchmarkFindContact1M(b *testing.B) {
	path := os.Getenv("SWITCHBOARD_BENCH_1M_DB")
	if path == "" {
		b.Skip("SWITCHBOARD_BENCH_1M_DB is not set")
	}
	quietLogs(b)
	st, err := store.Open(path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	wss, err := st.Workspaces()
	if err != nil || len(wss) == 0 {
		b.Fatalf("workspaces: %v %v", wss, err)
	}
	ws := wss[0].ID
	members, err := st.Members(ws)
	if err != nil {
		b.Fatal(err)
	}
	if len(members) == 0 { // the store's benchmarks build the file without users
		u, err := st.CreateUser(store.NewUser{Email: "bench-web@example.com", Name: "Bench"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.AddMember(ws, u.ID, ""); err != nil {
			b.Fatal(err)
		}
		members = []store.Membership{{UserID: u.ID}}
	}
	_, token, err := st.CreateToken(members[0].UserID, "bench")
	if err != nil {
		b.Fatal(err)
	}
	h := New(st, Config{RateLimit: 0, LogRequests: true})
	for _, k := range []struct{ name, query string }{
		{"no-match", "zzqxv"}, {"long-digits", "9999999999999"}, {"4-digits", "3589"}, {"two-words", "mar dav"},
	} {
		body, _ := json.Marshal(obj{"developerProvider": "zapier", "id": ws, "searchText": k.query})
		b.Run(k.name+"/http", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/v1/integrations/developer/zapier/find-contact-action", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
			reportCPU(b, cpu0)
		})
		b.Run(k.name+"/store", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if _, err := st.SearchContacts(ws, k.query); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
	}
}
