package web

import "strings"

// secretPaths are the path prefixes whose next segment is a bearer secret (an invitation, a
// password reset, an e-mail change, a media link): whoever reads it in a log could use it.
var secretPaths = []string{"/invite/", "/reset/", "/email-change/", "/media/"}

// logPath is the request path as logs may hold it: the secret segment after one of
// secretPaths is replaced by "…".
func logPath(p string) string {
	for _, prefix := range secretPaths {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok || rest == "" {
			continue
		}
		tail := ""
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			tail = rest[i:]
		}
		return prefix + "…" + tail
	}
	return p
}
