package cli

import (
	"flag"
	"fmt"

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

// adminSetNumber changes a number's type and registration: flags not given keep their values.
// It prints the number's registration afterwards: id, phone, type, status, brand, campaign and
// verification ids, tab-separated.
func adminSetNumber(a *adminEnv, args []string) error {
	ws := a.fs.String("workspace", "", "workspace id")
	id := a.fs.String("number", "", "number id (or --phone)")
	phone := a.fs.String("phone", "", "the number, E.164 (or --number)")
	reg := registrationFlags(a.fs)
	if err := applyEnv(a.fs); err != nil {
		return err
	}
	return a.withStore(args, func(s *store.Store) error {
		if err := required("workspace", *ws); err != nil {
			return err
		}
		var n store.PhoneNumber
		var err error
		switch {
		case *id != "":
			n, err = s.Number(*ws, *id)
		case *phone != "":
			var list []store.PhoneNumber
			if list, err = s.Numbers(*ws); err != nil {
				return err
			}
			err = fmt.Errorf("number %s is not in workspace %s", *phone, *ws)
			for _, x := range list {
				if x.Phone == *phone {
					n, err = x, nil
				}
			}
		default:
			return fmt.Errorf("missing --number or --phone")
		}
		if err != nil {
			return err
		}
		var base store.NumberRegistration
		if n.Registration != nil {
			base = *n.Registration
		}
		r := reg(base)
		if r == nil {
			return fmt.Errorf("nothing to change: give --type, --registration, --brand-id, --campaign-id or --verification-id")
		}
		if n, err = s.SetNumberRegistration(*ws, n.ID, *r); err != nil {
			return err
		}
		got := n.RegistrationOf()
		fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", n.ID, n.Phone, got.Type, got.Status, got.BrandID, got.CampaignID, got.VerificationID)
		return nil
	})
}
