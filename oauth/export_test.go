package oauth

// FailLogins records n failed sign-ins for an account and an address, as n wrong passwords
// would, without spending n bcrypt comparisons (seconds each under -race).
func FailLogins(p *Provider, email, addr string, n int) {
	for i := 0; i < n; i++ {
		p.limits.fail("account:"+email, p.now())
		p.limits.fail("addr:"+addr, p.now())
	}
}
