package web

import (
	"fmt"
	"net/http"

	"switchboard/store"
)

// getReportRequest is get-report-action's body: a range of the workspace's days and, to narrow
// it, a number and a member (a user id; the body's userId stays the untrusted field of every
// action).
type getReportRequest struct {
	workspaceID        string
	from, to           store.Date
	numberID, memberID string
}

const dateMessage = "must be a date YYYY-MM-DD (a day in the workspace's time zone)"

func decodeGetReport(f *fields, provider string) getReportRequest {
	var req getReportRequest
	req.workspaceID = f.base(provider, "id", true)
	date := func(name string) (store.Date, bool) {
		s := f.str(name, true, 0)
		if s == "" {
			return 0, false
		}
		d, ok := store.ParseDate(s)
		if !ok {
			f.fail(name, dateMessage)
		}
		return d, ok
	}
	from, okFrom := date("from")
	to, okTo := date("to")
	if okFrom && okTo {
		for _, fe := range store.CheckReportRange(from, to) {
			f.fail(fe.Field, fe.Message)
		}
	}
	req.from, req.to = from, to
	req.numberID = f.str("numberId", false, maxID)
	req.memberID = f.str("memberId", false, maxID)
	return req
}

// getReport answers the workspace's figures for a range of days (200), as /reports shows them:
// conversations, messages, response times, opt-outs, members and every day of the range. A
// member who is not an admin gets their own row only, and 403 for another member's.
func (h *Handler) getReport(w http.ResponseWriter, r *http.Request, c *call) {
	req := decodeGetReport(c.f, h.cfg.Provider)
	// A filter that failed its own rule is reported once, for that rule.
	data := store.WorkspaceData{}
	if !c.f.seen["numberId"] {
		data.NumberID = req.numberID
	}
	if !c.f.seen["memberId"] {
		data.MemberID = req.memberID
	}
	if !h.checked(w, r, c, req.workspaceID, data) {
		return
	}
	role, err := h.store.MemberRole(req.workspaceID, c.token.UserID)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	rep, err := h.store.Report(req.workspaceID, store.ReportQuery{From: req.from, To: req.to, NumberID: req.numberID,
		MemberID: req.memberID, ViewerID: c.token.UserID, Admin: role == "admin"})
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	if rep.Building {
		writeError(w, http.StatusConflict, "the reports' figures are being built from the messages kept (after an upgrade, or a change of time zone or business hours; "+
			buildProgress(rep.BuildDone, rep.BuildTotal)+" done); try again in a minute")
		return
	}
	writeJSON(w, http.StatusOK, newReportResult(&rep))
}

// buildProgress is how far a build got, in percent.
func buildProgress(done, total uint64) string {
	if total == 0 {
		return "0 %"
	}
	return fmt.Sprintf("%d %%", min(done*100/total, 99))
}

// reportResult is get-report-action's answer (DESIGN §24), field for field.
type reportResult struct {
	From                 string               `json:"from"`
	To                   string               `json:"to"`
	Conversations        reportConversations  `json:"conversations"`
	Messages             reportMessages       `json:"messages"`
	FirstResponseSeconds reportSeconds        `json:"firstResponseSeconds"`
	ResolutionSeconds    reportSeconds        `json:"resolutionSeconds"`
	OptOuts              int                  `json:"optOuts"`
	Members              []reportMemberResult `json:"members"`
	Days                 []reportDayResult    `json:"days"`
}

type reportConversations struct {
	Opened  int `json:"opened"`
	Replied int `json:"replied"`
	Closed  int `json:"closed"`
}

type reportMessages struct {
	Inbound   int `json:"inbound"`
	Outbound  int `json:"outbound"`
	Automatic int `json:"automatic"`
	Broadcast int `json:"broadcast"`
}

// reportSeconds: null when there is nothing to measure.
type reportSeconds struct {
	Median *int64 `json:"median"`
	P90    *int64 `json:"p90"`
}

type reportMemberResult struct {
	UserID                     string `json:"userId"`
	Assigned                   int    `json:"assigned"`
	Replied                    int    `json:"replied"`
	Closed                     int    `json:"closed"`
	FirstResponseMedianSeconds *int64 `json:"firstResponseMedianSeconds"`
}

type reportDayResult struct {
	Date     string `json:"date"`
	Inbound  int    `json:"inbound"`
	Outbound int    `json:"outbound"`
}

func newReportResult(rep *store.Report) reportResult {
	t := &rep.Totals
	out := reportResult{From: rep.From.String(), To: rep.To.String(),
		Conversations:        reportConversations{Opened: t.Opened, Replied: t.Replied, Closed: t.Closed},
		Messages:             reportMessages{Inbound: t.Inbound, Outbound: t.Outbound, Automatic: t.Automatic, Broadcast: t.Broadcast},
		FirstResponseSeconds: reportSeconds{Median: t.FirstResponse.Median, P90: t.FirstResponse.P90},
		ResolutionSeconds:    reportSeconds{Median: t.Resolution.Median, P90: t.Resolution.P90},
		OptOuts:              t.OptOuts,
		Members:              make([]reportMemberResult, len(rep.Members)),
		Days:                 make([]reportDayResult, len(rep.Days))}
	for i, m := range rep.Members {
		out.Members[i] = reportMemberResult{UserID: m.UserID, Assigned: m.Assigned, Replied: m.Replied, Closed: m.Closed,
			FirstResponseMedianSeconds: m.FirstResponse.Median}
	}
	for i, d := range rep.Days {
		out.Days[i] = reportDayResult{Date: d.Date.String(), Inbound: d.Inbound, Outbound: d.Outbound}
	}
	return out
}
