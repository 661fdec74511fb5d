package carrier

import (
	"context"

	"switchboard/store"
)

// Removed is a number taken out of its workspace: its carrier id (for releasing it), and
// whether its webhooks were cleared, or why not.
type Removed struct {
	Number    store.PhoneNumber
	CarrierID string
	Cleared   bool
	NotClear  string
}

// Remove takes a number out of its workspace. With clear, its webhooks at the carrier are
// cleared first when they point at Switchboard, so texts to it stop coming; if removing then
// fails, they are put back. A carrier that does not answer leaves the number where it is.
func (a *Accounts) Remove(ctx context.Context, ws, id string, clear bool) (Removed, error) {
	n, err := a.s.Number(ws, id)
	if err != nil {
		return Removed{}, err
	}
	if n.CarrierName() == store.ProviderSandbox {
		n, err = a.s.RemoveNumber(ws, id)
		return Removed{Number: n}, err
	}
	api, err := a.api(n.CarrierName())
	if err != nil {
		if !clear {
			n, err = a.s.RemoveNumber(ws, id)
		}
		return Removed{Number: n}, err
	}
	owned, found, err := a.locate(ctx, api, n)
	if err != nil {
		return Removed{}, err
	}
	if !found {
		n, err = a.s.RemoveNumber(ws, id)
		return Removed{Number: n, NotClear: label(n.CarrierName()) + " no longer has the number"}, err
	}
	out := Removed{CarrierID: owned.ID}
	if !clear {
		out.Number, err = a.s.RemoveNumber(ws, id)
		return out, err
	}
	defer a.locks.lock(n.CarrierName() + ":" + owned.ID)()
	if pointsElsewhere(owned.Wiring, Wiring{SMSURL: a.ourSMSURL(n.CarrierName())}) {
		out.NotClear = "its texts go to " + destination(owned.Wiring) + ", not to Switchboard, so its settings were left as they are"
		out.Number, err = a.s.RemoveNumber(ws, id)
		return out, err
	}
	if err := api.setWiring(ctx, owned.ID, Wiring{}); err != nil {
		return Removed{}, a.putBack(ctx, api, n.CarrierName(), owned, owned.Wiring, err)
	}
	if out.Number, err = a.s.RemoveNumber(ws, id); err != nil {
		return Removed{}, a.putBack(ctx, api, n.CarrierName(), owned, owned.Wiring, err)
	}
	out.Cleared = true
	return out, nil
}

// ourSMSURL is where Switchboard takes carrier's texts.
func (a *Accounts) ourSMSURL(carrier string) string {
	if carrier == store.ProviderTelnyx {
		return a.cfg.PublicURL + "/carrier/telnyx/webhook"
	}
	return a.cfg.PublicURL + "/carrier/twilio/sms"
}

// Release gives a number of carrier's account that no workspace uses back to the carrier: the
// account no longer has it and it is no longer billed. A number a workspace has is refused.
func (a *Accounts) Release(ctx context.Context, carrier, id string) (OwnedNumber, error) {
	api, err := a.api(carrier)
	if err != nil {
		return OwnedNumber{}, err
	}
	defer a.locks.lock(carrier + ":" + id)()
	n, err := api.number(ctx, id)
	if err != nil {
		return n, err
	}
	if used, err := a.s.PhonesInUse([]string{n.Phone}); err != nil {
		return n, err
	} else if used[n.Phone] {
		return n, &store.Error{Err: store.ErrConflict, Msg: n.Phone + " belongs to a workspace: remove it from there first"}
	}
	return n, api.release(ctx, id)
}
