package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"switchboard/store"
	"switchboard/views"
)

// deliveryLogSize is how many of a subscription's newest deliveries its log shows.
const deliveryLogSize = 20

// snippetSize bounds the response text shown per attempt.
const snippetSize = 200

var webhookNotices = map[string]string{"disable": "Subscription disabled: its pending deliveries were cancelled.",
	"enable": "Subscription enabled.", "delete": "Subscription deleted.", "redeliver": "Delivery queued again: it is sent at once."}

func (h *Handler) deliveryLog(subID string, loc *time.Location) (views.DeliveryLogView, error) {
	v := views.DeliveryLogView{SubscriptionID: subID}
	ds, err := h.store.SubscriptionDeliveries(subID, deliveryLogSize)
	if err != nil {
		return v, err
	}
	for _, d := range ds {
		row := views.DeliveryRow{ID: d.ID, Status: d.Status, Created: fmtTime(d.CreatedAt, loc), CanRedeliver: true}
		as, err := h.store.DeliveryAttempts(d.ID)
		if err != nil {
			return v, err
		}
		for _, a := range as {
			st := "—"
			if a.StatusCode != 0 {
				st = strconv.Itoa(a.StatusCode)
			}
			resp := strings.Join(strings.Fields(a.Response), " ")
			if r := []rune(resp); len(r) > snippetSize {
				resp = string(r[:snippetSize]) + "…"
			}
			row.Attempts = append(row.Attempts, views.AttemptRow{At: fmtTime(a.At, loc), Status: st,
				Latency: strconv.FormatInt(a.LatencyMS, 10) + " ms", Error: a.Error, Response: resp})
		}
		v.Deliveries = append(v.Deliveries, row)
	}
	return v, nil
}

func (h *Handler) webhooksView(r *http.Request, u *ui) (views.WebhooksView, error) {
	v := views.WebhooksView{Events: store.EventNames, Notice: webhookNotices[r.URL.Query().Get("done")]}
	subs, err := h.store.Subscriptions(u.ws.ID)
	if err != nil {
		return v, err
	}
	loc := u.ws.Location()
	names := map[string]string{}
	for _, s := range subs {
		owner, ok := names[s.UserID]
		if !ok {
			owner = "the installation"
			if s.UserID != "" {
				if usr, err := h.store.User(s.UserID); err == nil {
					owner = pickName(usr)
				}
			}
			names[s.UserID] = owner
		}
		state := "active"
		switch {
		case !s.Active && s.FailingSince != nil:
			state = "disabled after failing"
		case !s.Active:
			state = "disabled"
		case s.FailingSince != nil:
			state = "active, failing since " + fmtTime(*s.FailingSince, loc)
		}
		row := views.WebhookRow{ID: s.ID, Event: s.EventName, URL: s.HookURL, Owner: owner, State: state,
			Created: fmtTime(s.CreatedAt, loc), Active: s.Active}
		if row.Log, err = h.deliveryLog(s.ID, loc); err != nil {
			return v, err
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

// webhooksPage is /settings/webhooks, for the forms that post back to it.
func (h *Handler) webhooksPage(r *http.Request, u *ui) formPage[views.WebhooksView] {
	return pageOf(h, "Webhooks", views.Webhooks, func() (views.WebhooksView, error) { return h.webhooksView(r, u) })
}

func (h *Handler) settingsWebhooks(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	h.webhooksPage(r, u).show(w, r, u, http.StatusOK, nil)
}

// createWebhook is POST /settings/webhooks: the URL goes through the API's SSRF guard (after
// the admin check page() made); the page answers with the new subscription's secret.
func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	if !h.readUIForm(w, r, u) {
		return
	}
	event, hook := r.PostForm.Get("event"), strings.TrimSpace(r.PostForm.Get("url"))
	errs := map[string]string{}
	if !store.ValidEventName(event) {
		errs["event"] = "Choose one of the events"
	}
	if pu, err := url.Parse(hook); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Hostname() == "" || len(hook) > store.MaxMediaURL {
		errs["url"] = "Must be an absolute http or https URL"
	} else if h.cfg.ValidateHookURL != nil {
		if err := h.cfg.ValidateHookURL(r.Context(), hook); err != nil {
			errs["url"] = capitalize(err.Error())
		}
	}
	var sub store.Subscription
	if len(errs) == 0 {
		var err error
		sub, err = h.store.Subscribe(u.ws.ID, u.user.ID, event, hook)
		errs = fieldErrors(err, map[string]string{"hookUrl": "url", "eventName": "event"})
	}
	if len(errs) > 0 {
		h.webhooksPage(r, u).show(w, r, u, http.StatusUnprocessableEntity, func(v *views.WebhooksView) {
			v.Event, v.URL, v.Errors = event, hook, errs
		})
		return
	}
	h.webhooksPage(r, u).show(w, r, u, http.StatusOK, func(v *views.WebhooksView) { v.Secret = sub.Secret })
}

// webhookLog is the delivery log fragment htmx refreshes.
func (h *Handler) webhookLog(w http.ResponseWriter, r *http.Request, u *ui) {
	sub, err := h.store.FindSubscription(r.PathValue("sub"))
	if err != nil || sub.WorkspaceID != u.ws.ID {
		u.section = "settings"
		h.notFound(w, r, u, "such subscription")
		return
	}
	v, err := h.deliveryLog(sub.ID, u.ws.Location())
	if err != nil {
		h.uiError(w, r, u, err)
		return
	}
	h.fragment(w, r, views.DeliveryLog(v))
}

// webhookAction is POST /settings/webhooks/{sub}/disable, enable or delete.
func (h *Handler) webhookAction(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	id, action := r.PathValue("sub"), r.PathValue("action")
	sub, err := h.store.FindSubscription(id)
	if err != nil || sub.WorkspaceID != u.ws.ID {
		h.notFound(w, r, u, "such subscription")
		return
	}
	switch action {
	case "disable":
		_, err = h.store.DisableSubscription(u.ws.ID, id)
	case "enable":
		_, _, err = h.store.EnableSubscription(id)
	case "delete":
		err = h.store.Unsubscribe(u.ws.ID, id)
	default:
		h.notFound(w, r, u, "such action")
		return
	}
	if err != nil {
		h.webhookError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/webhooks?done="+action, http.StatusSeeOther)
}

// webhookError shows a refused action (over the limit, a disabled subscription) on the page.
func (h *Handler) webhookError(w http.ResponseWriter, r *http.Request, u *ui, err error) {
	if errors.Is(err, store.ErrNotFound) {
		h.notFound(w, r, u, "such subscription or delivery")
		return
	}
	if !errors.Is(err, store.ErrConflict) {
		h.uiError(w, r, u, err)
		return
	}
	h.webhooksPage(r, u).show(w, r, u, http.StatusConflict, func(v *views.WebhooksView) {
		v.Error = fieldErrors(err, nil)["form"]
	})
}

func (h *Handler) redeliver(w http.ResponseWriter, r *http.Request, u *ui) {
	u.section = "settings"
	d, err := h.store.Delivery(r.PathValue("delivery"))
	if err != nil || d.WorkspaceID != u.ws.ID {
		h.notFound(w, r, u, "such delivery")
		return
	}
	if _, err := h.store.Redeliver(d.ID); err != nil {
		h.webhookError(w, r, u, err)
		return
	}
	http.Redirect(w, r, "/settings/webhooks?done=redeliver", http.StatusSeeOther)
}
