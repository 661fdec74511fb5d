package web

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"switchboard/carrier"
	"switchboard/internal/testutil"
	"switchboard/store"
)

// TestUIInboundRecovery: the Admin overview (/admin) and the Carriers page say, for each carrier
// in use, when Switchboard last asked it for missed texts and what it recovered, or why the
// check failed and what the next one looks back to; nothing for a carrier with no account.
func TestUIInboundRecovery(t *testing.T) {
	e := newCarrierUIEnv(t, func(c *carrier.AccountsConfig) {
		c.Twilio = carrier.TwilioAccount{AccountSID: cTwilioSID, AuthToken: cTwilioToken}
	})
	su := e.signIn(t, e.superuser(t))
	for _, page := range []string{"/admin", "/admin/carriers"} {
		res, body := e.send(t, su, "GET", page, nil)
		wantStatus(t, page+" before any check", res, body, http.StatusOK, "Missed texts</", "<strong>Twilio</strong>: not checked yet.")
		if strings.Contains(body, `data-testid="recovery-telnyx"`) {
			t.Fatalf("%s: a carrier without an account has a line", page)
		}
	}

	at := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	_, err := e.st.RecordRecoveryCheck(store.ProviderTwilio, store.RecoveryCheck{At: at, Since: at.Add(-24 * time.Hour), Texts: 3, Statuses: 1})
	testutil.NoErr(t, err)
	for _, page := range []string{"/admin", "/admin/carriers"} {
		res, body := e.send(t, su, "GET", page, nil)
		wantStatus(t, page+" after a check", res, body, http.StatusOK,
			"last checked Mar 4 2025, 12:00, looking back to Mar 3 2025, 12:00: 3 texts and 1 status recovered.",
			"3 texts from Twilio recovered in all.")
	}

	_, err = e.st.RecordRecoveryCheck(store.ProviderTwilio, store.RecoveryCheck{At: at.Add(5 * time.Minute), Since: at.Add(-10 * time.Minute),
		Error: "Twilio did not answer within 20s."})
	testutil.NoErr(t, err)
	for _, page := range []string{"/admin", "/admin/carriers"} {
		res, body := e.send(t, su, "GET", page, nil)
		wantStatus(t, page+" after a failed check", res, body, http.StatusOK,
			"the check at Mar 4 2025, 12:05 failed. Twilio did not answer within 20s.",
			"The last check that worked ran at Mar 4 2025, 12:00; the next one, in 5 minutes, looks back to it.",
			"3 texts from Twilio recovered in all.")
	}
}

// TestUIInboundRecoveryWithoutCarriers: an installation with no carrier account and no check on
// record has no Missed texts card on /admin.
func TestUIInboundRecoveryWithoutCarriers(t *testing.T) {
	e := newCarrierUIEnv(t, nil)
	su := e.signIn(t, e.superuser(t))
	res, body := e.send(t, su, "GET", "/admin", nil)
	wantStatus(t, "/admin", res, body, http.StatusOK, `data-testid="admin-overview"`)
	if strings.Contains(body, "Missed texts") {
		t.Fatal("/admin shows missed texts without any carrier in use")
	}
}
