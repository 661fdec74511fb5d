package carrier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"switchboard/store"
)

// Checking a number: its settings are read at the carrier again and what was found is kept on
// the number, by hand from its Check page and every hour for all of them.

// errSandbox is a carrier action asked of a sandbox number.
var errSandbox = &store.Error{Err: store.ErrConflict, Msg: "sandbox numbers reach no carrier, so there is nothing to check there"}

// locate finds n at its carrier: by its link, else by its phone (numbers added by hand).
func (a *Accounts) locate(ctx context.Context, api numberAPI, n store.PhoneNumber) (OwnedNumber, bool, error) {
	if n.Link != nil && n.Link.ID != "" {
		owned, err := api.number(ctx, n.Link.ID)
		if IsKind(err, KindNotFound) {
			return OwnedNumber{}, false, nil
		}
		if err == nil && owned.Phone != n.Phone {
			return OwnedNumber{}, false, nil // the id is another number's now
		}
		return owned, err == nil, err
	}
	return api.find(ctx, n.Phone)
}

// Check reads the number's settings at its carrier again and records what it found on the
// number (its Link). A carrier that does not answer changes nothing.
func (a *Accounts) Check(ctx context.Context, ws, id string) (store.PhoneNumber, error) {
	n, err := a.s.Number(ws, id)
	if err != nil {
		return n, err
	}
	return a.check(ctx, n)
}

func (a *Accounts) check(ctx context.Context, n store.PhoneNumber) (store.PhoneNumber, error) {
	if n.CarrierName() == store.ProviderSandbox {
		return n, errSandbox
	}
	if !a.cfg.PublicURLSet {
		return n, &PublicURLError{Reason: a.PublicURLProblem()}
	}
	api, err := a.api(n.CarrierName())
	if err != nil {
		return n, err
	}
	owned, found, err := a.locate(ctx, api, n)
	if err != nil {
		return n, err
	}
	link := store.CarrierLink{ID: owned.ID, CheckedAt: a.cfg.Now()}
	if !found {
		link.Problem = label(n.CarrierName()) + " no longer has this number in the account"
		if n.Link != nil {
			link.ID = n.Link.ID
		}
	} else {
		link.Problem = api.problem(owned.Wiring, a.cfg.PublicURL)
	}
	return a.s.SetNumberLink(n.WorkspaceID, n.ID, link)
}

// Reconnect points a stored number's webhooks at Switchboard again (its texts went elsewhere),
// reads them back and records the reading; on failure they are put back as they were.
func (a *Accounts) Reconnect(ctx context.Context, ws, id string) (store.PhoneNumber, error) {
	n, err := a.s.Number(ws, id)
	if err != nil {
		return n, err
	}
	if n.CarrierName() == store.ProviderSandbox {
		return n, errSandbox
	}
	base, err := a.publicBase()
	if err != nil {
		return n, err
	}
	api, err := a.api(n.CarrierName())
	if err != nil {
		return n, err
	}
	owned, found, err := a.locate(ctx, api, n)
	if err == nil && !found {
		err = &APIError{Carrier: label(n.CarrierName()), Kind: KindNotFound}
	}
	if err != nil {
		return n, err
	}
	defer a.locks.lock(n.CarrierName() + ":" + owned.ID)()
	want, err := api.ours(ctx, base, n.Phone)
	if err != nil {
		return n, err
	}
	if err := api.setWiring(ctx, owned.ID, want); err != nil {
		return n, a.putBack(ctx, api, n.CarrierName(), owned, owned.Wiring, err)
	}
	got, err := api.number(ctx, owned.ID)
	if err == nil {
		if p := api.problem(got.Wiring, base); p != "" {
			err = &WiringError{Reason: label(n.CarrierName()) + " did not keep the settings: " + p + "."}
		}
	}
	if err != nil {
		return n, a.putBack(ctx, api, n.CarrierName(), owned, owned.Wiring, err)
	}
	return a.s.SetNumberLink(ws, n.ID, store.CarrierLink{ID: owned.ID, CheckedAt: a.cfg.Now()})
}

// SendTest sends a test text from the number to to now, through its carrier, and returns the
// carrier's id of it. It is not kept in the inbox; a reply to it is, as any inbound text.
func (a *Accounts) SendTest(ctx context.Context, n store.PhoneNumber, to string) (string, error) {
	if n.CarrierName() == store.ProviderSandbox {
		return "", errSandbox
	}
	if opted, err := a.s.IsOptedOut(n.WorkspaceID, to); err != nil {
		return "", err
	} else if opted {
		return "", &store.Error{Err: store.ErrOptedOut, Msg: to + " has opted out of this workspace's texts"}
	}
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	text := "Switchboard test: texts from " + n.Phone + " work. Reply to see your reply arrive in the inbox."
	id, err := a.Carrier(n.CarrierName()).Send(ctx, Outbound{MessageID: "test", From: n.Phone, To: to, Text: text})
	if err != nil {
		if p, ok := Permanent(err); ok {
			return "", &WiringError{Reason: label(n.CarrierName()) + " refused the test text: " + p.Reason}
		}
		return "", &WiringError{Reason: label(n.CarrierName()) + " did not take the test text (" + err.Error() + "). Try again in a moment."}
	}
	return id, nil
}

// Numbers of the account that could not be checked are left as they were last read; the
// hourly check goes on with the others.
var errCheckFailed = errors.New("carrier: some numbers could not be checked")

// CheckAll reads the settings of every active Twilio and Telnyx number at its carrier and
// records what it found, flagging the numbers whose texts no longer reach Switchboard: the
// hourly check. Without a configured public URL there is nothing to compare with.
func (a *Accounts) CheckAll() (int, error) {
	if !a.cfg.PublicURLSet {
		return 0, nil
	}
	numbers, err := a.s.AllNumbers()
	if err != nil {
		return 0, err
	}
	var failed []error
	for _, n := range numbers {
		if !n.Active || n.CarrierName() == store.ProviderSandbox || !a.Usable(n.CarrierName()) {
			continue
		}
		checked, err := a.check(context.Background(), n)
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", n.Phone, err))
			continue
		}
		if p := checked.Link.Problem; p != "" && (n.Link == nil || n.Link.Problem != p) {
			slog.Warn("carrier: a number's texts no longer reach Switchboard", "phone", n.Phone, "carrier", n.CarrierName(), "problem", p)
		}
	}
	if failed != nil {
		return 0, errors.Join(append([]error{errCheckFailed}, failed...)...)
	}
	return 0, nil
}

// Miswired lists the active numbers whose last check found their texts not reaching
// Switchboard.
func Miswired(s *store.Store) ([]store.PhoneNumber, error) {
	all, err := s.AllNumbers()
	var out []store.PhoneNumber
	for _, n := range all {
		if n.Active && n.Link != nil && n.Link.Problem != "" {
			out = append(out, n)
		}
	}
	return out, err
}
