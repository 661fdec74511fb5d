package webhooks

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Schedule is the delay before each retry: after the first attempt fails the
// delivery is retried 5 s later, and so on; when the last retry fails the delivery has failed.
var Schedule = [...]time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// MaxAttempts is the first attempt plus one per Schedule entry.
const MaxAttempts = len(Schedule) + 1

// Jitter is the ± fraction applied to every scheduled delay.
const Jitter = 0.2

// maxRetryAfter bounds what a Retry-After header is parsed to; the clamp makes any larger value
// moot and it keeps the arithmetic far from overflow.
const maxRetryAfter = 365 * 24 * time.Hour

// NextDelay returns the delay before the retry that follows failed attempt number attempt
// (1-based), or ok=false when no retry is left. u in [0,1) picks the jitter: the delay is the
// scheduled one times 0.8 + 0.4·u. For a 429, 502, 503 or 504 with a Retry-After, the server's
// wish is honoured within [delay, 2·delay] of that jittered delay.
func NextDelay(attempt int, u float64, status int, retryAfter time.Duration, hasRetryAfter bool) (time.Duration, bool) {
	if attempt < 1 || attempt > len(Schedule) {
		return 0, false
	}
	if u < 0 || u >= 1 || u != u {
		u = 0.5
	}
	base := Schedule[attempt-1]
	d := time.Duration(float64(base) * (1 - Jitter + 2*Jitter*u))
	if hasRetryAfter && honoursRetryAfter(status) {
		d = min(max(retryAfter, d), 2*d)
	}
	return d, true
}

func honoursRetryAfter(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// ParseRetryAfter reads a Retry-After header (RFC 9110 §10.2.3): delay-seconds or an HTTP date,
// relative to now. A date in the past is a zero delay; anything unparsable is ok=false.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' {
		for i := 0; i < len(v); i++ {
			if v[i] < '0' || v[i] > '9' {
				return 0, false
			}
		}
		// Compare in seconds before converting: n·time.Second overflows past ~292 years.
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n > int64(maxRetryAfter/time.Second) {
			return maxRetryAfter, true // all digits, so only too large to parse
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		return 0, true
	}
	return min(d, maxRetryAfter), true
}
