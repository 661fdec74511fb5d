package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Guard keeps webhook deliveries off internal networks (SSRF). It checks a hook URL when a
// subscription is made (ValidateURL, host names resolved then) and every connection the delivery
// client opens, after DNS (Control), so a name that later resolves somewhere else (DNS
// rebinding) is still refused. Allowed prefixes (-hook-allow-cidrs) open chosen ranges.
type Guard struct {
	allow    []netip.Prefix
	resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}
}

// NewGuard returns a guard that lets through the given CIDRs (IPv4-mapped ones unwrapped).
func NewGuard(allow []*net.IPNet) *Guard {
	g := &Guard{resolver: net.DefaultResolver}
	for _, n := range allow {
		if p, ok := prefixOf(n); ok {
			g.allow = append(g.allow, p)
		}
	}
	return g
}

// prefixOf converts a net.IPNet, unwrapping ::ffff:a.b.c.d/96+n to a.b.c.d/n so that the
// allow-list matches the unwrapped addresses it is compared with.
func prefixOf(n *net.IPNet) (netip.Prefix, bool) {
	addr, ok := netip.AddrFromSlice(n.IP)
	if !ok {
		return netip.Prefix{}, false
	}
	ones, _ := n.Mask.Size()
	if addr.Is4In6() && ones >= 96 {
		return netip.PrefixFrom(addr.Unmap(), ones-96).Masked(), true
	}
	if addr.Is4() && len(n.Mask) == net.IPv6len {
		ones -= 96
	}
	if ones < 0 {
		return netip.Prefix{}, false
	}
	return netip.PrefixFrom(addr, ones).Masked(), true
}

// BlockedError says why an address is refused. Its message is shown to API clients as the
// hookUrl validation message.
type BlockedError struct {
	Addr   netip.Addr // the address as resolved
	Inner  netip.Addr // the IPv4 address it embeds, when it is a mapped/NAT64/6to4 form
	Reason string     // "a loopback address", …
	Host   string     // the host name that resolved to Addr, if any
}

func (e *BlockedError) Error() string {
	var b strings.Builder
	b.WriteString("must not point at ")
	b.WriteString(e.Reason)
	b.WriteString(" (")
	if e.Host != "" {
		b.WriteString(e.Host + " resolves to ")
	}
	b.WriteString(e.Addr.String())
	if e.Inner.IsValid() && e.Inner != e.Addr {
		b.WriteString(", which embeds " + e.Inner.String())
	}
	b.WriteString("); webhooks go to public addresses only, unless an admin allows the range with -hook-allow-cidrs")
	return b.String()
}

// ErrUnresolvable is wrapped by ValidateURL when the host name does not resolve.
var ErrUnresolvable = errors.New("does not resolve")

// RefusedError is ValidateURL's answer for a hook URL whose host it refuses. Its message is
// shown to the API client, so for a host name it says neither what the name resolves to nor
// whether it resolves at all: otherwise any token could map internal DNS through the answers.
// Cause (a *BlockedError, or ErrUnresolvable) is for logs and errors.Is/As.
type RefusedError struct {
	Reason string // for a literal IP address only: the range it falls in, which its sender knows
	Cause  error
}

const allowedHint = "webhooks go to public addresses only, unless an admin allows the range with -hook-allow-cidrs"

func (e *RefusedError) Error() string {
	if e.Reason != "" {
		return "is not an allowed address (" + e.Reason + "); " + allowedHint
	}
	return "is not an allowed address; " + allowedHint
}

func (e *RefusedError) Unwrap() error { return e.Cause }

type blockRule struct {
	prefix netip.Prefix
	reason string
	always bool // refused even when an allowed prefix covers it: not a unicast destination
}

func rules(list ...blockRule) []blockRule { return list }

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// metadataAddrs are cloud instance-metadata endpoints, named separately so the message says so.
// Most also fall in a blocked range; 100.100.100.200 (Alibaba) sits in CGNAT space.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OpenStack, DigitalOcean…
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task metadata
	netip.MustParseAddr("169.254.169.123"): true, // AWS time sync
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IMDS over IPv6
	netip.MustParseAddr("fd00:ec2::23"):    true, // AWS DNS over IPv6
}

// The blocked ranges, checked in order on the unwrapped address. Broadcast precedes the
// reserved 240/4 it sits in so the message names it.
var (
	blockedV4 = rules(
		blockRule{pfx("0.0.0.0/8"), "an unspecified address (0.0.0.0/8)", true},
		blockRule{pfx("255.255.255.255/32"), "the broadcast address", true},
		blockRule{pfx("224.0.0.0/4"), "a multicast address", true},
		blockRule{pfx("127.0.0.0/8"), "a loopback address", false},
		blockRule{pfx("10.0.0.0/8"), "a private address (RFC 1918)", false},
		blockRule{pfx("172.16.0.0/12"), "a private address (RFC 1918)", false},
		blockRule{pfx("192.168.0.0/16"), "a private address (RFC 1918)", false},
		blockRule{pfx("100.64.0.0/10"), "a carrier-grade NAT address (100.64.0.0/10)", false},
		blockRule{pfx("169.254.0.0/16"), "a link-local address", false},
		blockRule{pfx("192.0.2.0/24"), "a documentation address (TEST-NET-1)", false},
		blockRule{pfx("198.51.100.0/24"), "a documentation address (TEST-NET-2)", false},
		blockRule{pfx("203.0.113.0/24"), "a documentation address (TEST-NET-3)", false},
		blockRule{pfx("192.0.0.0/24"), "an IETF protocol address (192.0.0.0/24)", false},
		blockRule{pfx("192.88.99.0/24"), "a 6to4 relay address (192.88.99.0/24)", false},
		blockRule{pfx("198.18.0.0/15"), "a benchmarking address (198.18.0.0/15)", false},
		blockRule{pfx("240.0.0.0/4"), "a reserved address (240.0.0.0/4)", false},
	)
	blockedV6 = rules(
		blockRule{pfx("::/128"), "the unspecified address (::)", true},
		blockRule{pfx("ff00::/8"), "a multicast address", true},
		blockRule{pfx("::1/128"), "a loopback address", false},
		blockRule{pfx("fc00::/7"), "a private address (unique local, fc00::/7)", false},
		blockRule{pfx("fe80::/10"), "a link-local address", false},
		blockRule{pfx("fec0::/10"), "a site-local address (fec0::/10)", false},
		blockRule{pfx("2001:db8::/32"), "a documentation address (2001:db8::/32)", false},
		blockRule{pfx("3fff::/20"), "a documentation address (3fff::/20)", false},
		blockRule{pfx("100::/64"), "a discard-only address (100::/64)", false},
		blockRule{pfx("64:ff9b:1::/48"), "a local-use NAT64 address (64:ff9b:1::/48)", false},
		blockRule{pfx("2001::/32"), "a Teredo address (2001::/32)", false},
		blockRule{pfx("2001::/23"), "an IETF protocol address (2001::/23)", false},
		blockRule{pfx("::ffff:0:0:0/96"), "an IPv4-translated address (::ffff:0:0:0/96)", false},
		blockRule{pfx("::/96"), "an IPv4-compatible address (::/96, deprecated)", false},
	)
	nat64  = pfx("64:ff9b::/96")
	sixTo4 = pfx("2002::/16")
)

// Unwrap returns the IPv4 address an IPv6 address carries in an IPv4-mapped (::ffff:a.b.c.d),
// NAT64 (64:ff9b::a.b.c.d) or 6to4 (2002:aabb:ccdd::) form, or the address itself. Every check,
// the allow-list's included, runs on the unwrapped address: ::ffff:127.0.0.1 is loopback.
func Unwrap(a netip.Addr) netip.Addr {
	a = a.WithZone("")
	if a.Is4In6() {
		return a.Unmap()
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return netip.AddrFrom4([4]byte(b[12:16]))
		case sixTo4.Contains(a):
			return netip.AddrFrom4([4]byte(b[2:6]))
		}
	}
	return a
}

// CheckIP reports why a is not a permitted webhook destination, or nil.
func (g *Guard) CheckIP(a netip.Addr) error {
	if !a.IsValid() {
		return &BlockedError{Addr: a, Reason: "an invalid address"}
	}
	inner := Unwrap(a)
	reason, always := classify(inner)
	if reason == "" {
		return nil
	}
	if !always {
		for _, p := range g.allow {
			if p.Contains(inner) {
				return nil
			}
		}
	}
	e := &BlockedError{Addr: a.WithZone(""), Reason: reason}
	if inner != a.WithZone("") {
		e.Inner = inner
	}
	return e
}

// classify names the blocked range an (unwrapped) address falls in, "" for a public address;
// always is true for ranges no allow-list opens.
func classify(a netip.Addr) (reason string, always bool) {
	if metadataAddrs[a] {
		return "a cloud metadata address", false
	}
	list := blockedV6
	if a.Is4() {
		list = blockedV4
	}
	for _, r := range list {
		if r.prefix.Contains(a) {
			return r.reason, r.always
		}
	}
	return "", false
}

// ValidateURL checks a hook URL at subscribe time: http or https, a host, and every address the
// host resolves to permitted. A host that does not resolve is an error. The error's message
// reads as the hookUrl validation message; a refused host is a *RefusedError, whose message
// reveals nothing of DNS.
func (g *Guard) ValidateURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return errors.New("must be an absolute http or https URL")
	}
	if u.User != nil {
		return errors.New("must not carry a user name or password; put credentials in the path or rely on the signature")
	}
	if p := u.Port(); p != "" {
		if n, ok := parsePort(p); !ok || n == 0 {
			return fmt.Errorf("has an invalid port %q", p)
		}
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return errors.New("must not use an IPv6 zone")
		}
		if err := g.CheckIP(a); err != nil {
			re := &RefusedError{Cause: err}
			var be *BlockedError
			if errors.As(err, &be) {
				re.Reason = be.Reason
			}
			return re
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return &RefusedError{Cause: fmt.Errorf("host %s %w", host, ErrUnresolvable)}
	}
	for _, a := range addrs {
		// LookupNetIP reports IPv4 answers in their 16-byte form; show them as IPv4.
		if err := g.CheckIP(a.Unmap()); err != nil {
			var be *BlockedError
			if errors.As(err, &be) {
				be.Host = host
			}
			return &RefusedError{Cause: err}
		}
	}
	return nil
}

// AllowListed reports whether host (an IP address, or a name resolved now) lies wholly inside
// the ranges -hook-allow-cidrs opens: an admin's own receiver, which other senders than the
// webhooks (a private Web Push relay, a test's push service) may reach over plain http too.
func (g *Guard) AllowListed(ctx context.Context, host string) bool {
	if len(g.allow) == 0 || host == "" {
		return false
	}
	addrs := []netip.Addr{}
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = append(addrs, a)
	} else {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if addrs, err = g.resolver.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
			return false
		}
	}
	for _, a := range addrs {
		inner := Unwrap(a)
		if !slices.ContainsFunc(g.allow, func(p netip.Prefix) bool { return p.Contains(inner) }) {
			return false
		}
	}
	return true
}

func parsePort(s string) (int, bool) {
	if s == "" || len(s) > 5 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, n <= 65535
}

// Control is a net.Dialer Control function: it runs after DNS, on the address actually being
// connected to, and refuses it when CheckIP does.
func (g *Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhooks: refusing to connect to %q: not an IP address", address)
	}
	if err := g.CheckIP(ap.Addr()); err != nil {
		return fmt.Errorf("webhooks: refusing to connect to %s (SSRF guard): %w", address, err)
	}
	return nil
}
