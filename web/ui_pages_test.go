package web

import (
	"net/url"
	"testing"
)

// Walking a list forward three pages and back again comes back through the same pages, with
// the filters kept, to the first page's own URL.
func TestPageLinksWalkBack(t *testing.T) {
	cursors := []string{"", "c1", "c2", "c3"}
	urls := []string{"/contacts?group=g"}
	u := urls[0]
	for i := 1; i < len(cursors); i++ {
		q := mustQuery(t, u)
		next, _ := pageLinks("/contacts", q, "after", cursors[i])
		if got := mustQuery(t, next).Get("after"); got != cursors[i] {
			t.Fatalf("page %d's next starts at %q, want %q", i, got, cursors[i])
		}
		u = next
		urls = append(urls, u)
	}
	for i := len(urls) - 1; i > 0; i-- {
		_, prev := pageLinks("/contacts", mustQuery(t, urls[i]), "after", "")
		pq, wq := mustQuery(t, prev), mustQuery(t, urls[i-1])
		if pq.Get("after") != wq.Get("after") || pq.Get("group") != "g" || len(pq["back"]) != len(wq["back"]) {
			t.Fatalf("previous of page %d is %s, want the page %s", i, prev, urls[i-1])
		}
	}
	if _, prev := pageLinks("/contacts", mustQuery(t, urls[0]), "after", "c1"); prev != "" {
		t.Errorf("the first page has a previous page: %s", prev)
	}
	if _, prev := pageLinks("/contacts", mustQuery(t, urls[1]), "after", ""); prev != "/contacts?group=g" {
		t.Errorf("the second page's previous is %s, want the first page's URL", prev)
	}
}

func mustQuery(t *testing.T, u string) url.Values {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Query()
}
