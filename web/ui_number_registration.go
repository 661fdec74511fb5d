package web

import (
	"errors"
	"net/http"

	"switchboard/store"
	"switchboard/views"
)

// registrationRow is a number's registration card row on /settings/numbers.
func registrationRow(u *ui, n *store.PhoneNumber) views.NumberRegistrationRow {
	r := n.RegistrationOf()
	return views.NumberRegistrationRow{ID: n.ID, Phone: u.showPhone(n.Phone), E164: n.Phone, Name: n.Name, Type: r.Type, Status: r.Status,
		BrandID: r.BrandID, CampaignID: r.CampaignID, VerificationID: r.VerificationID,
		Sandbox: n.CarrierName() == store.ProviderSandbox, Warning: n.RegistrationWarning()}
}

// addWarning adds n's registration warning, if any, to a compose page's warnings by number.
func addWarning(warnings map[string]string, n *store.PhoneNumber) map[string]string {
	if w := n.RegistrationWarning(); w != "" {
		if warnings == nil {
			warnings = map[string]string{}
		}
		warnings[n.Phone] = w
	}
	return warnings
}

// setNumberRegistration is POST /settings/numbers/{number}/registration (workspace admins): the
// number's type, registration status and carrier ids. A refused value re-renders the page (422)
// with the form as typed and its errors.
func (h *Handler) setNumberRegistration(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	id := r.PathValue("number")
	in := store.NumberRegistration{Type: r.PostForm.Get("type"), Status: r.PostForm.Get("registrationStatus"),
		BrandID: r.PostForm.Get("brandId"), CampaignID: r.PostForm.Get("campaignId"), VerificationID: r.PostForm.Get("verificationId")}
	_, err := h.store.SetNumberRegistration(u.ws.ID, id, in)
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such number")
		return
	}
	errs := fieldErrors(err, nil)
	h.numbersPage(r, u).answer(w, r, u, errs, "/settings/numbers?done=registration", func(v *views.NumbersView) {
		for i := range v.Registrations {
			if row := &v.Registrations[i]; row.ID == id {
				row.Type, row.Status, row.BrandID, row.CampaignID, row.VerificationID = in.Type, in.Status, in.BrandID, in.CampaignID, in.VerificationID
				row.Errors = errs
			}
		}
		v.Error = "The registration was not saved: " + firstError(errs)
	})
}
