package cli

import (
	"flag"
	"fmt"
	"strings"

	"switchboard/store"
)

// registrationFlags declares a number's registration flags on fs; the function it returns is
// the registration given (nil when no flag was), with the flags not given taken from base.
func registrationFlags(fs *flag.FlagSet) func(base store.NumberRegistration) *store.NumberRegistration {
	typ := fs.String("type", "", "number type: local, toll-free or short-code (default: guessed from the number)")
	status := fs.String("registration", "", "carrier registration: unregistered, pending, approved or rejected (default unregistered)")
	brand := fs.String("brand-id", "", "A2P 10DLC brand id (local numbers)")
	campaign := fs.String("campaign-id", "", "A2P 10DLC campaign id (local numbers)")
	verification := fs.String("verification-id", "", "toll-free verification id")
	return func(base store.NumberRegistration) *store.NumberRegistration {
		given := false
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "type":
				base.Type = *typ
			case "registration":
				base.Status = *status
			case "brand-id":
				base.BrandID = *brand
			case "campaign-id":
				base.CampaignID = *campaign
			case "verification-id":
				base.VerificationID = *verification
			default:
				return
			}
			given = true
		})
		if !given {
			return nil
		}
		return &base
	}
}

// adminSetNumber changes a number's type, registration and daily cap: flags not given keep
// their values. The number is found by id or phone (--number takes either), in --workspace
// when given, else in any workspace. It prints the number's id, phone, type, status, brand,
// campaign and verification ids and daily cap, tab-separated.
func adminSetNumber(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id (default: the workspace that has the number)")
	number := a.fs.String("number", "", "the number's id or phone (E.164, e.g. +14155550100)")
	phone := a.fs.String("phone", "", "the number, E.164 (or --number)")
	reg := registrationFlags(a.fs)
	var dailyCap *int
	a.fs.Func("daily-cap", dailyCapUsage, func(v string) error {
		n, err := parseDailyCap(v)
		dailyCap = &n
		return err
	})
	if err := applyEnv(a.fs); err != nil {
		return err
	}
	return a.withStore(args, func(s *store.Store) error {
		want := strings.TrimSpace(*number)
		if want == "" {
			want = strings.TrimSpace(*phone)
		}
		if want == "" {
			return fmt.Errorf("missing --number or --phone")
		}
		n, err := findNumber(s, *ws, want)
		if err != nil {
			return err
		}
		var base store.NumberRegistration
		if n.Registration != nil {
			base = *n.Registration
		}
		r := reg(base)
		if r == nil && dailyCap == nil {
			return fmt.Errorf("nothing to change: give --type, --registration, --brand-id, --campaign-id, --verification-id or --daily-cap")
		}
		if n, err = s.SetNumberSettings(n.WorkspaceID, n.ID, r, dailyCap); err != nil {
			return err
		}
		got := n.RegistrationOf()
		fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", n.ID, n.Phone, got.Type, got.Status, got.BrandID, got.CampaignID, got.VerificationID, n.DailyCap)
		return nil
	})
}

// findNumber is the number whose id or phone is want, in workspace ws or, when ws is "", in any.
func findNumber(s *store.Store, ws, want string) (store.PhoneNumber, error) {
	var list []store.PhoneNumber
	var err error
	if ws != "" {
		list, err = s.Numbers(ws)
	} else {
		list, err = s.AllNumbers()
	}
	if err != nil {
		return store.PhoneNumber{}, err
	}
	for _, n := range list {
		if n.ID == want || n.Phone == want {
			return n, nil
		}
	}
	if ws != "" {
		return store.PhoneNumber{}, fmt.Errorf("number %s is not in workspace %s", want, ws)
	}
	return store.PhoneNumber{}, fmt.Errorf("no number %s in any workspace (list them with list-numbers)", want)
}
