package web

import (
	"net/url"
	"slices"
)

// A list paged by cursor goes forward by its next cursor; to go back, the cursors of the pages
// before the one shown ride along in the URL, one "back" value per page (the first page's as
// ""). "Previous page" is then a plain link: it works without JavaScript, with the back button
// and in a bookmark, and the server keeps nothing.

// maxBackTrail is how many earlier pages a URL remembers; from further on, going back far
// enough lands on the first page.
const maxBackTrail = 50

// pageLinks are the URLs of the next and the previous page of the list at path. q holds the
// list's parameters, param its cursor parameter with the cursor of the page shown (none: the
// first page) and "back" the trail; next is the cursor after the page shown ("" on the last).
// A URL is "" where there is no such page.
func pageLinks(path string, q url.Values, param, next string) (nextURL, prevURL string) {
	trail, cur := q["back"], q.Get(param)
	if next != "" {
		nq := cloneValues(q)
		nq.Set(param, next)
		t := append(slices.Clone(trail), cur)
		if len(t) > maxBackTrail {
			t = t[len(t)-maxBackTrail:]
		}
		nq["back"] = t
		nextURL = path + "?" + nq.Encode()
	}
	if cur != "" {
		pq := cloneValues(q)
		pq.Del(param)
		pq.Del("back")
		if n := len(trail); n > 0 {
			if trail[n-1] != "" {
				pq.Set(param, trail[n-1])
			}
			if n > 1 {
				pq["back"] = slices.Clone(trail[:n-1])
			}
		}
		prevURL = path
		if len(pq) > 0 {
			prevURL += "?" + pq.Encode()
		}
	}
	return nextURL, prevURL
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}
