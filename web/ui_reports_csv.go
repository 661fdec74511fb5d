package web

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"switchboard/store"
)

// reportTables are the tables /reports.csv downloads, each the numbers of one of the page's
// pictures; days (the default) is the days table of §24.
var reportTables = map[string]func(rep *store.Report, names map[string]string) [][]string{
	"days":       daysCSV,
	"times":      timesCSV,
	"hours":      hoursCSV,
	"members":    membersCSV,
	"broadcasts": broadcastsCSV,
}

// reportsCSV is GET /reports.csv?from=&to=: a table of the report of /reports' filter (the same
// query string) as CSV; table chooses which (days unless said). Bad input is a 400 with the
// reason in words.
func (h *Handler) reportsCSV(w http.ResponseWriter, r *http.Request, u *ui) {
	table := r.URL.Query().Get("table")
	if table == "" {
		table = "days"
	}
	rows := reportTables[table]
	f, problem := h.readReportFilter(r, u)
	if rows == nil {
		problem = "table must be days, times, hours, members or broadcasts."
	}
	if problem != "" {
		http.Error(w, problem, http.StatusBadRequest)
		return
	}
	rep, err := h.store.Report(u.ws.ID, f.q)
	if err != nil {
		if msg, code, ok := reportRefusal(err); ok {
			http.Error(w, msg, code)
			return
		}
		logUIError(r, err)
		http.Error(w, "Something went wrong. Please try again.", http.StatusInternalServerError)
		return
	}
	var names map[string]string
	if table == "members" {
		if _, names, err = h.memberChoices(u); err != nil {
			logUIError(r, err)
			http.Error(w, "Something went wrong. Please try again.", http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="report-%s-%s-to-%s.csv"`, table, rep.From, rep.To))
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	_ = cw.WriteAll(rows(&rep, names))
}

func n(v int) string { return strconv.Itoa(v) }

// secs is a duration in seconds, empty when there is none.
func secs(s *int64) string {
	if s == nil {
		return ""
	}
	return strconv.FormatInt(*s, 10)
}

// cell keeps a spreadsheet from reading a name as a formula.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func daysCSV(rep *store.Report, _ map[string]string) [][]string {
	out := [][]string{{"date", "inbound", "outbound", "automatic", "broadcast", "delivered", "failed", "opened", "replied",
		"closed", "optOuts", "firstResponseMedianSeconds", "resolutionMedianSeconds"}}
	for _, d := range rep.Days {
		out = append(out, []string{d.Date.String(), n(d.Inbound), n(d.Outbound), n(d.Automatic), n(d.Broadcast), n(d.Delivered),
			n(d.Failed), n(d.Opened), n(d.Replied), n(d.Closed), n(d.OptOuts), secs(d.FirstResponse.Median), secs(d.Resolution.Median)})
	}
	return out
}

func timesCSV(rep *store.Report, _ map[string]string) [][]string {
	out := [][]string{{"band", "fromSeconds", "belowSeconds", "firstResponses", "resolutions"}}
	from := uint32(0)
	for i, b := range store.ReportBands {
		below := ""
		if b.Below > 0 {
			below = strconv.FormatUint(uint64(b.Below), 10)
		}
		out = append(out, []string{b.Label, strconv.FormatUint(uint64(from), 10), below, n(rep.FirstResponseBands[i]), n(rep.ResolutionBands[i])})
		from = b.Below
	}
	return out
}

func hoursCSV(rep *store.Report, _ map[string]string) [][]string {
	head := []string{"day"}
	for h := range 24 {
		head = append(head, fmt.Sprintf("%02d", h))
	}
	out := [][]string{head}
	for d, name := range weekdays {
		row := []string{name}
		for h := range 24 {
			row = append(row, n(rep.Hours[d][h]))
		}
		out = append(out, row)
	}
	return out
}

func membersCSV(rep *store.Report, names map[string]string) [][]string {
	out := [][]string{{"userId", "name", "assigned", "replied", "closed", "textsSent", "firstResponseMedianSeconds"}}
	for _, m := range rep.Members {
		out = append(out, []string{m.UserID, cell(names[m.UserID]), n(m.Assigned), n(m.Replied), n(m.Closed), n(m.Outbound),
			secs(m.FirstResponse.Median)})
	}
	return out
}

func broadcastsCSV(rep *store.Report, _ map[string]string) [][]string {
	head := []string{"id", "name", "startedAt", "sent", "delivered", "failed", "skippedOptedOut", "skippedLandline", "cancelled",
		"replies", "optOuts"}
	head = append(head, store.FailureGroups[:]...)
	out := [][]string{head}
	for _, b := range rep.Broadcasts {
		row := []string{b.ID, cell(b.Name), store.FormatTime(b.StartedAt), n(b.Sent), n(b.Delivered), n(b.Failed), n(b.Skipped),
			n(b.Landline), n(b.Cancelled), n(b.Replies), n(b.OptOuts)}
		for _, f := range b.Failures {
			row = append(row, n(f))
		}
		out = append(out, row)
	}
	return out
}
