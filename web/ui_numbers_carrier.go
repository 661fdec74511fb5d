package web

import (
	"switchboard/carrier"
	"switchboard/store"
	"switchboard/views"
)

// What /settings/numbers shows of the connected carrier accounts: each number's last check,
// the ways to add or buy a number there, and the numbers whose texts no longer arrive.

// carrierNotices are the numbers page's notices after the carrier account's actions.
var carrierNotices = map[string]string{
	"wired":           "Number added. Receiving: checked — its texts and delivery receipts come to Switchboard.",
	"bought":          "Number bought and added. Receiving: checked — its texts and delivery receipts come to Switchboard.",
	"removed":         "Number removed from this workspace.",
	"removed-cleared": "Number removed from this workspace, and its webhooks at the carrier cleared.",
	"removed-kept":    "Number removed from this workspace. Its webhooks at the carrier pointed somewhere else, so they were left as they are.",
	"released":        "Number released: the carrier account no longer has it.",
}

// numberNotice is the notice of a numbers page's done= value.
func numberNotice(done string) string {
	if n, ok := numberNotices[done]; ok {
		return n
	}
	return carrierNotices[done]
}

// receivingOf is the Receiving cell of a number: "" for sandbox numbers, else the last check.
func receivingOf(n *store.PhoneNumber) (state, problem string) {
	switch {
	case n.CarrierName() == store.ProviderSandbox:
		return "", ""
	case n.Link == nil || n.Link.CheckedAt.IsZero():
		return "unchecked", ""
	case n.Link.Problem != "":
		return "problem", capitalize(n.Link.Problem) + "."
	}
	return "checked", ""
}

// fromCarrier is the numbers page's card of the connected accounts.
func (h *Handler) fromCarrier(u *ui) views.FromCarrierView {
	return views.FromCarrierView{Enabled: h.cfg.Accounts != nil, Superuser: u.user.Superuser, Carriers: h.accountCarriers("")}
}

// miswiredRows are the installation's numbers whose texts no longer reach Switchboard, with their
// workspaces' names: the warning the admin pages show.
func (h *Handler) miswiredRows(u *ui) ([]views.MiswiredRow, error) {
	bad, err := carrier.Miswired(h.store)
	if err != nil || len(bad) == 0 {
		return nil, err
	}
	names := map[string]string{}
	for _, ws := range u.workspaces {
		names[ws.ID] = ws.Name
	}
	var rows []views.MiswiredRow
	for i := range bad {
		_, problem := receivingOf(&bad[i])
		rows = append(rows, views.MiswiredRow{Phone: u.showPhone(bad[i].Phone), Workspace: names[bad[i].WorkspaceID],
			Problem: problem, Checked: fmtTime(bad[i].Link.CheckedAt, u.ws.Location())})
	}
	return rows, nil
}
