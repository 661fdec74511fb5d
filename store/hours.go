package store

import (
	"time"

	"switchboard/automation"
	"switchboard/store/kv"
)

// Business hours are kept in the workspace's routing: the workspace's week and holidays, and
// a number's own when it overrides them. They are read in the workspace's time zone.

// HoursInput is business hours as a person writes them: the week notation ("mon-fri
// 09:00-17:00; sat 10:00-13:00", blank for always open) and holidays (YYYY-MM-DD, separated by
// commas).
type HoursInput struct {
	Week     string
	Holidays string
}

// ParseHours reads in into hours; the errors name the field (week, holidays).
func ParseHours(in HoursInput) (automation.Hours, error) {
	var errs ValidationError
	w, err := automation.ParseWeek(in.Week)
	if err != nil {
		errs = append(errs, FieldError{"week", err.Error()})
	}
	days, err := automation.ParseHolidays(in.Holidays)
	if err != nil {
		errs = append(errs, FieldError{"holidays", err.Error()})
	}
	if errs != nil {
		return automation.Hours{}, errs
	}
	return automation.Hours{Week: w, Holidays: days}, nil
}

// SetHours sets the workspace's business hours, or — with numberID — that number's own. A nil
// in with a number makes the number use the workspace's hours again.
func (s *Store) SetHours(workspaceID, numberID string, in *HoursInput) (automation.Hours, error) {
	var h automation.Hours
	if in != nil {
		var err error
		if h, err = ParseHours(*in); err != nil {
			return h, err
		}
	} else if numberID == "" {
		return h, ValidationError{{"week", "is required"}}
	}
	_, err := s.changeRouting(workspaceID, func(tx *wtx, rt *Routing) error {
		if numberID == "" {
			rt.Hours = h
			return nil
		}
		n, err := routedNumber(tx.Tx, workspaceID, numberID, rt)
		if err != nil {
			return tx.refuse(err)
		}
		if in == nil {
			n.Hours = nil
		} else {
			n.Hours = &h
		}
		return nil
	})
	return h, err
}

// routedNumber is the routing entry of the workspace's number numberID (created when the
// number sets nothing yet); an unknown number is ErrNotFound.
func routedNumber(tx *kv.Tx, workspaceID, numberID string, rt *Routing) (*NumberRouting, error) {
	if tx.Bucket(bNumbers).Get(wsKeyChecked(workspaceID, numberID)) == nil {
		return nil, errorf(ErrNotFound, "number not found")
	}
	if rt.Numbers == nil {
		rt.Numbers = map[string]*NumberRouting{}
	}
	n := rt.Numbers[numberID]
	if n == nil {
		n = &NumberRouting{}
		rt.Numbers[numberID] = n
	}
	return n, nil
}

// OpenState is whether a workspace is open now and, when closed, when it opens next.
type OpenState struct {
	Open bool
	// Always: the hours are always open and no holiday is near (the header shows nothing).
	Always bool
	// Opens is when it opens next (zero when open, or never within the search).
	Opens time.Time
	// Location is the workspace's time zone, for showing Opens.
	Location *time.Location
}

// OpenNow says whether the workspace's business hours are open now, and when closed, when
// they open next: the inbox header's "Open" or "Closed · opens Mon 09:00".
func (s *Store) OpenNow(workspaceID string) (OpenState, error) {
	var st OpenState
	err := s.view(func(tx *kv.Tx) error {
		w, err := getWorkspace(tx, workspaceID)
		if err != nil {
			return err
		}
		r, err := s.routingOf(tx, workspaceID)
		if err != nil {
			return err
		}
		st = openState(&r.Hours, s.Now(), w.Location())
		return nil
	})
	return st, err
}

func openState(h *automation.Hours, now time.Time, loc *time.Location) OpenState {
	st := OpenState{Location: loc, Open: h.Open(now, loc), Always: h.IsZero()}
	if !st.Open {
		st.Opens, _ = h.NextOpen(now, loc)
	}
	return st
}
