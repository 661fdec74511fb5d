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
	var access store.NumberAccess
	var teams string
	a.fs.Func("teams", "team ids (or names), comma-separated: only their members and admins use the number (\"\" for every member)", func(v string) error {
		teams = v
		access.Teams = &[]string{}
		return nil
	})
	a.fs.Func("default-team", "the team whose auto-assignment takes the number's new conversations (\"\" for none)", func(v string) error {
		access.DefaultTeam = &v
		return nil
	})
	a.fs.Func("default-assignee", "the member (user id or e-mail) who takes the number's new conversations when available (\"\" for none)", func(v string) error {
		access.DefaultAssignee = &v
		return nil
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
		routing := access != (store.NumberAccess{})
		if r == nil && dailyCap == nil && !routing {
			return fmt.Errorf("nothing to change: give --type, --registration, --brand-id, --campaign-id, --verification-id, --daily-cap, --teams, --default-team or --default-assignee")
		}
		if routing {
			got, err := setNumberAccess(s, n, access, teams)
			if err != nil {
				return err
			}
			if r == nil && dailyCap == nil {
				fmt.Fprintf(a.stdout, "%s\t%s\t%s\t%s\n", n.ID, strings.Join(got.Teams, ","), got.DefaultTeam, got.DefaultAssignee)
				return nil
			}
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

// setNumberAccess limits a number to teams (names or ids) and sets its default team and
// assignee (an id or an e-mail).
func setNumberAccess(s *store.Store, n store.PhoneNumber, access store.NumberAccess, teams string) (store.NumberRouting, error) {
	rt, err := s.RoutingOf(n.WorkspaceID)
	if err != nil {
		return store.NumberRouting{}, err
	}
	if access.Teams != nil {
		ids := teamIDs(rt, teams)
		access.Teams = &ids
	}
	if access.DefaultTeam != nil {
		if ids := teamIDs(rt, *access.DefaultTeam); len(ids) > 0 {
			access.DefaultTeam = &ids[0]
		}
	}
	if access.DefaultAssignee != nil {
		ids, err := userIDs(s, *access.DefaultAssignee)
		if err != nil {
			return store.NumberRouting{}, err
		}
		if len(ids) > 0 {
			access.DefaultAssignee = &ids[0]
		}
	}
	return s.SetNumberAccess(n.WorkspaceID, n.ID, access)
}
