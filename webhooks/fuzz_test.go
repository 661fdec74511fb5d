package webhooks

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// fixedResolver answers every name with the same addresses, so fuzzing never touches DNS.
type fixedResolver []netip.Addr

func (r fixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return r, nil
}

// FuzzCheckIP: an IPv4 address gets the same verdict in every wrapping (mapped, NAT64, 6to4),
// with and without an allow-list, and no input panics.
func FuzzCheckIP(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254", "93.184.216.34", "0.0.0.0", "::1",
		"::ffff:127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "fd00:ec2::254", "2606:4700::1", "255.255.255.255"} {
		a := netip.MustParseAddr(s)
		b := a.AsSlice()
		f.Add(b)
	}
	_, lo, _ := net.ParseCIDR("127.0.0.0/8")
	guards := []*Guard{NewGuard(nil), NewGuard([]*net.IPNet{lo})}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		for _, g := range guards {
			verdict := g.CheckIP(a) == nil
			if !a.Is4() {
				if u := Unwrap(a); u.Is4() && (g.CheckIP(u) == nil) != verdict {
					t.Fatalf("%s and the IPv4 it embeds, %s, get different verdicts", a, u)
				}
				continue
			}
			v4 := a.As4()
			mapped := netip.AddrFrom16([16]byte{10: 0xff, 11: 0xff, 12: v4[0], 13: v4[1], 14: v4[2], 15: v4[3]})
			nat := netip.AddrFrom16([16]byte{0: 0, 1: 0x64, 2: 0xff, 3: 0x9b, 12: v4[0], 13: v4[1], 14: v4[2], 15: v4[3]})
			six := netip.AddrFrom16([16]byte{0: 0x20, 1: 0x02, 2: v4[0], 3: v4[1], 4: v4[2], 5: v4[3], 15: 1})
			for _, w := range []netip.Addr{mapped, nat, six} {
				if (g.CheckIP(w) == nil) != verdict {
					t.Fatalf("%s is %v but its wrapping %s is %v", a, verdict, w, !verdict)
				}
			}
			if a.IsLoopback() && verdict && len(g.allow) == 0 {
				t.Fatalf("loopback %s allowed without an allow-list", a)
			}
		}
	})
}

// FuzzValidateURL: no URL panics the check, and an accepted one is an http(s) URL whose host is
// a permitted address.
func FuzzValidateURL(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1/", "https://example.com/x", "http://[::ffff:10.0.0.1]:80/",
		"http://0x7f000001/", "http://2130706433/", "http://[fe80::1%25eth0]/", "http://a@b/", "https://93.184.216.34:443/",
		"http://localhost:99999/", "javascript:alert(1)", "http://[64:ff9b::1.2.3.4]/"} {
		f.Add(s)
	}
	public := &Guard{resolver: fixedResolver{netip.MustParseAddr("93.184.216.34")}}
	private := &Guard{resolver: fixedResolver{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.1")}}
	f.Fuzz(func(t *testing.T, raw string) {
		if private.ValidateURL(context.Background(), raw) == nil {
			if u, err := url.Parse(raw); err == nil {
				if _, err := netip.ParseAddr(u.Hostname()); err != nil {
					t.Fatalf("%q accepted although its host resolves to a private address too", raw)
				}
			}
		}
		if public.ValidateURL(context.Background(), raw) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			t.Fatalf("accepted %q, which is not an http(s) URL with a host", raw)
		}
		if a, err := netip.ParseAddr(u.Hostname()); err == nil && public.CheckIP(a) != nil {
			t.Fatalf("accepted %q, whose address is refused", raw)
		}
	})
}

// FuzzParseRetryAfter: never panics, never negative, never beyond the cap; digits are seconds.
func FuzzParseRetryAfter(f *testing.F) {
	now := time.Date(2026, 11, 21, 22, 13, 19, 0, time.UTC)
	for _, s := range []string{"120", "0", "Sun, 22 Nov 2026 00:00:00 GMT", "Sunday, 22-Nov-26 00:00:00 GMT",
		"Sun Nov 22 00:00:00 2026", "-5", "1e9", "99999999999999999999", " 7 ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(v, now)
		if !ok {
			if d != 0 {
				t.Fatalf("ParseRetryAfter(%q) = %v, false; want 0 when unparsable", v, d)
			}
			return
		}
		if d < 0 || d > maxRetryAfter {
			t.Fatalf("ParseRetryAfter(%q) = %v, out of [0, %v]", v, d, maxRetryAfter)
		}
		if n, err := strconv.ParseUint(v, 10, 32); err == nil && d != min(time.Duration(n)*time.Second, maxRetryAfter) {
			t.Fatalf("ParseRetryAfter(%q) = %v, want %d s", v, d, n)
		}
		// Whatever the server asks, the clamp keeps the retry within [delay, 2·delay].
		for attempt := 1; attempt <= len(Schedule); attempt++ {
			got, _ := NextDelay(attempt, 0.5, 503, d, true)
			if got < Schedule[attempt-1] || got > 2*Schedule[attempt-1] {
				t.Fatalf("Retry-After %q: retry %d delay %v, outside [%v, %v]", v, attempt, got, Schedule[attempt-1], 2*Schedule[attempt-1])
			}
		}
	})
}

func TestNextDelayTable(t *testing.T) {
	cases := []struct {
		attempt int
		u       float64
		status  int
		ra      time.Duration
		hasRA   bool
		want    time.Duration
		ok      bool
	}{
		{1, 0, 500, 0, false, 4 * time.Second, true},
		{1, 0.999999, 500, 0, false, 5999999 * time.Microsecond, true}, // just under +20 %
		{2, 0.5, 500, 0, false, 5 * time.Minute, true},
		{7, 0.5, 500, 0, false, 10 * time.Hour, true},
		{8, 0.5, 500, 0, false, 0, false}, // the eighth attempt was the last
		{0, 0.5, 500, 0, false, 0, false},
		{1, 0.5, 429, time.Hour, true, 10 * time.Second, true},
		{1, 0, 503, 9 * time.Second, true, 8 * time.Second, true}, // jittered 4 s: clamp to [4 s, 8 s]
		{1, 0.5, 400, time.Hour, true, 5 * time.Second, true},     // 400 does not honour Retry-After
		{1, -1, 500, 0, false, 5 * time.Second, true},             // a broken random source means no jitter
	}
	for _, c := range cases {
		got, ok := NextDelay(c.attempt, c.u, c.status, c.ra, c.hasRA)
		if ok != c.ok || (got-c.want) > time.Millisecond || (c.want-got) > time.Millisecond {
			t.Errorf("NextDelay(%d, %v, %d, %v, %v) = %v, %v; want %v, %v", c.attempt, c.u, c.status, c.ra, c.hasRA, got, ok, c.want, c.ok)
		}
	}
}
