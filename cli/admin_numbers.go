package cli

import (
	"fmt"
	"os"
	"strconv"

	"switchboard/store"
)

func adminAddNumber(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	phone := a.fs.String("phone", "", "E.164 number, e.g. +14155550100")
	name := a.fs.String("name", "", "label shown in dropdowns")
	carrierName := a.fs.String("carrier", "", "sandbox, twilio or telnyx (default $SWITCHBOARD_CARRIER, else sandbox)")
	dailyCap := 0
	rate := a.fs.String("rate", "", "messages per second, 0 = unlimited (default: the server's -send-rate; sandbox: unlimited)")
	reg := registrationFlags(a.fs)
	a.fs.Func("daily-cap", dailyCapUsage, func(v string) (err error) {
		dailyCap, err = parseDailyCap(v)
		return err
	})
	var tw twilioConfig
	twilioFlags(a.fs, &tw)
	var tx telnyxConfig
	telnyxFlags(a.fs, &tx)
	if err := applyEnv(a.fs); err != nil {
		return err
	}
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws, "phone", *phone); err != nil {
			return err
		}
		in := store.NumberInput{Phone: *phone, Name: *name, Carrier: *carrierName, Registration: reg(store.NumberRegistration{}), DailyCap: dailyCap}
		if in.Carrier == "" {
			in.Carrier = os.Getenv(envName("carrier"))
		}
		if in.Carrier == store.ProviderTwilio && !tw.configured() && !connectedAccount(s, in.Carrier) {
			return fmt.Errorf("--carrier twilio needs the Twilio credentials: set SWITCHBOARD_TWILIO_ACCOUNT_SID and SWITCHBOARD_TWILIO_AUTH_TOKEN (or --twilio-account-sid and --twilio-auth-token), as for serve, or connect a Twilio account on /admin/carriers")
		}
		if in.Carrier == store.ProviderTelnyx && !tx.configured() && !connectedAccount(s, in.Carrier) {
			return fmt.Errorf("--carrier telnyx needs the Telnyx API key: set SWITCHBOARD_TELNYX_API_KEY (or --telnyx-api-key), as for serve, or connect a Telnyx account on /admin/carriers")
		}
		if *rate != "" {
			r, err := strconv.ParseFloat(*rate, 64)
			if err != nil {
				return fmt.Errorf("--rate %q is not a number of messages per second", *rate)
			}
			in.Rate = &r
		}
		n, err := s.CreateNumber(*ws, in)
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, n.ID)
		return nil
	})
}

// adminListNumbers prints one tab-separated row per number: id, workspace, phone, name, carrier,
// rate ("default" when the server's -send-rate applies), active or inactive.
func adminListNumbers(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "only this workspace's numbers")
	return a.withStore(args, func(s *store.Store) error {
		var list []store.PhoneNumber
		var err error
		if *ws != "" {
			if _, err := s.Workspace(*ws); err != nil {
				return err
			}
			list, err = s.Numbers(*ws)
		} else {
			list, err = s.AllNumbers()
		}
		if err != nil {
			return err
		}
		for _, n := range list {
			rate := "default"
			if n.Rate != nil {
				rate = strconv.FormatFloat(*n.Rate, 'f', -1, 64)
			}
			state := "active"
			if !n.Active {
				state = "inactive"
			}
			fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n.ID, n.WorkspaceID, n.Phone, n.Name, n.CarrierName(), rate, state)
		}
		return nil
	})
}
