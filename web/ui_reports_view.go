package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"switchboard/store"
	"switchboard/views"
)

// fillReportView turns a report into /reports' view: headline cards with their change, the
// pictures and their tables.
func fillReportView(v *views.ReportsView, rep *store.Report, names map[string]string, loc *time.Location) {
	v.Shown = true
	v.Period, v.Previous = periodWords(rep.From, rep.To), periodWords(rep.PreviousFrom, rep.PreviousTo)
	if rep.Building {
		v.Building = "The figures are being built again from the messages kept (after an upgrade, or a change of time zone or business hours): " +
			buildProgress(rep.BuildDone, rep.BuildTotal) + " done. The figures below are not complete yet."
	}
	t, p := &rep.Totals, &rep.Previous
	v.Cards = []views.ReportCard{
		countCard("Conversations opened", "card-opened", t.Opened, p.Opened, true),
		countCard("Conversations replied to", "card-replied", t.Replied, p.Replied, true),
		countCard("Conversations closed", "card-closed", t.Closed, p.Closed, true),
		countCard("Texts from contacts", "card-inbound", t.Inbound, p.Inbound, true),
		countCard("Texts sent", "card-sent", t.Sent(), p.Sent(), true),
		timeCard("First response (median)", "card-first-response", t.FirstResponse, p.FirstResponse),
		timeCard("Resolution (median)", "card-resolution", t.Resolution, p.Resolution),
		countCard("Opt-outs", "card-optouts", t.OptOuts, p.OptOuts, false),
		countCard("Automatic replies", "card-automatic", t.Automatic, p.Automatic, true),
		countCard("Rule firings", "card-rules", t.RuleFirings, p.RuleFirings, true),
	}
	labels := make([]string, len(rep.Days))
	in, user, auto, bcast, optOuts := make([]int, len(rep.Days)), make([]int, len(rep.Days)), make([]int, len(rep.Days)),
		make([]int, len(rep.Days)), make([]int, len(rep.Days))
	for i, d := range rep.Days {
		labels[i] = d.Date.Time().Format("Jan 2")
		in[i], user[i], auto[i], bcast[i], optOuts[i] = d.Inbound, d.Outbound, d.Automatic, d.Broadcast, d.OptOuts
		v.Days = append(v.Days, views.ReportDayRow{Date: d.Date.Time().Format("Mon Jan 2"), Inbound: d.Inbound,
			Outbound: d.Outbound, Automatic: d.Automatic, Broadcast: d.Broadcast, Opened: d.Opened, Replied: d.Replied,
			Closed: d.Closed, OptOuts: d.OptOuts, FirstResponse: formatSeconds(d.FirstResponse.Median)})
	}
	v.Messages = views.LineChart{ID: "chart-messages", Title: "Messages per day, " + v.Period, Labels: labels,
		Desc: fmt.Sprintf("Texts per day: %s from contacts, %s sent by members, %s automatic and %s broadcast copies in all.",
			count(t.Inbound), count(t.Outbound), count(t.Automatic), count(t.Broadcast)),
		Series: []views.Series{{Name: "From contacts", Values: in}, {Name: "By members", Values: user},
			{Name: "Automatic", Values: auto}, {Name: "Broadcast copies", Values: bcast}}}
	fillReportTimes(v, rep)
	fillReportHours(v, rep)
	for _, m := range rep.Members {
		name := names[m.UserID]
		if name == "" {
			name = "Former member"
		}
		v.MemberRows = append(v.MemberRows, views.ReportMemberRow{Name: name, Assigned: m.Assigned, Replied: m.Replied,
			Closed: m.Closed, Outbound: m.Outbound, FirstResponse: formatSeconds(m.FirstResponse.Median)})
	}
	fillReportBroadcasts(v, rep, loc)
	v.OptOuts = views.BarChart{ID: "chart-optouts", Title: "Opt-outs per day, " + v.Period, Labels: labels,
		Desc:   fmt.Sprintf("%s opt-outs in all; the most in a day: %s.", count(t.OptOuts), count(maxInts(optOuts))),
		Series: []views.Series{{Name: "Opt-outs", Values: optOuts}}}
	if sent := t.Sent(); sent > 0 {
		v.OptOutShare = fmt.Sprintf("%s opt-outs: %s of the %s texts sent in this period.", count(t.OptOuts),
			percent(t.OptOuts, sent), count(sent))
	} else {
		v.OptOutShare = count(t.OptOuts) + " opt-outs; no texts were sent in this period."
	}
	for g, n := range t.Failures {
		if n > 0 {
			v.Failures = append(v.Failures, views.ReportFailureRow{Reason: store.FailureGroups[g], Count: n})
		}
	}
}

// shortBands label the response-time chart's bars by their upper bounds (ReportBands, short
// enough for a phone's width).
var shortBands = []string{"<1m", "<5m", "<15m", "<1h", "<4h", "<1d", "1d+"}

func fillReportTimes(v *views.ReportsView, rep *store.Report) {
	t := &rep.Totals
	v.Business = rep.BusinessHours
	v.TimeSummary = []views.ReportTimeSummary{summaryRow("First response", t.FirstResponse), summaryRow("Resolution", t.Resolution)}
	if rep.BusinessHours {
		v.TimeSummary = append(v.TimeSummary, summaryRow("First response (business hours)", t.FirstResponseBusiness),
			summaryRow("Resolution (business hours)", t.ResolutionBusiness))
	}
	fr, res := rep.FirstResponseBands[:], rep.ResolutionBands[:]
	for i, b := range store.ReportBands {
		v.TimeRows = append(v.TimeRows, views.ReportTimeRow{Band: b.Label, FirstResponses: fr[i], Resolution: res[i]})
	}
	v.Times = views.BarChart{ID: "chart-times", Title: "How long first responses and resolutions took",
		Desc: fmt.Sprintf("%s first responses, median %s; %s resolutions, median %s.", count(t.FirstResponse.Count),
			formatSeconds(t.FirstResponse.Median), count(t.Resolution.Count), formatSeconds(t.Resolution.Median)),
		Labels: shortBands, Series: []views.Series{{Name: "First responses", Values: fr}, {Name: "Resolutions", Values: res}}}
}

var weekdays = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

func fillReportHours(v *views.ReportsView, rep *store.Report) {
	h := views.HeatMap{ID: "chart-hours", Title: "Busiest hours: texts from contacts by day and hour", Rows: weekdays}
	top, topDay, topHour := 0, 0, 0
	for hr := range 24 {
		h.Cols = append(h.Cols, fmt.Sprintf("%02d", hr))
	}
	for d := range 7 {
		row := make([]int, 24)
		for hr := range 24 {
			row[hr] = rep.Hours[d][hr]
			if row[hr] > top {
				top, topDay, topHour = row[hr], d, hr
			}
		}
		h.Values = append(h.Values, row)
	}
	h.Desc = "No texts from contacts in this period."
	if top > 0 {
		h.Desc = fmt.Sprintf("The busiest hour was %s %02d:00 with %s texts from contacts.", weekdays[topDay], topHour, count(top))
	}
	v.Hours = h
}

func fillReportBroadcasts(v *views.ReportsView, rep *store.Report, loc *time.Location) {
	v.Broadcasts = views.StackedBars{ID: "chart-broadcasts", Title: "Broadcasts: what became of the copies",
		Parts: []string{"Delivered", "Sent, not yet delivered", "Failed", "Skipped (opted out)", "Cancelled"}}
	delivered, failed := 0, 0
	for _, b := range rep.Broadcasts {
		name := b.Name
		if name == "" {
			name = "Broadcast from " + b.From
		}
		started := b.StartedAt.In(loc).Format("Mon Jan 2, 15:04")
		v.Broadcasts.Rows = append(v.Broadcasts.Rows, views.StackedRow{Label: name + " · " + started,
			Values: []int{b.Delivered, max(b.Sent-b.Delivered, 0), b.Failed, b.Skipped, b.Cancelled}})
		var reasons []string
		for g, n := range b.Failures {
			if n > 0 {
				reasons = append(reasons, store.FailureGroups[g]+": "+count(n))
			}
		}
		if b.Landline > 0 {
			reasons = append(reasons, "Skipped as landlines: "+count(b.Landline))
		}
		v.BroadcastRows = append(v.BroadcastRows, views.ReportBroadcastRow{ID: b.ID, Name: name, Started: started, Sent: b.Sent,
			Delivered: b.Delivered, Failed: b.Failed, Skipped: b.Skipped, Replies: b.Replies, OptOuts: b.OptOuts,
			Reasons: strings.Join(reasons, "; ")})
		delivered += b.Delivered
		failed += b.Failed
	}
	v.Broadcasts.Desc = fmt.Sprintf("%d broadcasts started in this period: %s copies delivered, %s failed.",
		len(rep.Broadcasts), count(delivered), count(failed))
}

func summaryRow(label string, d store.Durations) views.ReportTimeSummary {
	return views.ReportTimeSummary{Label: label, Median: formatSeconds(d.Median), P90: formatSeconds(d.P90), Count: d.Count}
}

// countCard is a count with its change from the previous period; up is good unless it is not.
func countCard(label, id string, cur, prev int, upIsGood bool) views.ReportCard {
	c := views.ReportCard{Label: label, TestID: id, Value: count(cur)}
	switch {
	case cur == prev:
		c.Change = "Same as the period before"
	case prev == 0:
		c.Change, c.Trend = "Up from none the period before", "up"
	default:
		c.Trend = "up"
		if cur < prev {
			c.Trend = "down"
		}
		c.Change = fmt.Sprintf("%s %s from %s", map[string]string{"up": "Up", "down": "Down"}[c.Trend], percent(abs(cur-prev), prev), count(prev))
	}
	c.Good = (c.Trend == "up") == upIsGood
	return c
}

// timeCard is a median time with its change; shorter is better.
func timeCard(label, id string, cur, prev store.Durations) views.ReportCard {
	c := views.ReportCard{Label: label, TestID: id, Value: formatSeconds(cur.Median)}
	switch {
	case cur.Median == nil || prev.Median == nil:
		c.Change = "Nothing to compare with"
	case *cur.Median == *prev.Median:
		c.Change = "Same as the period before"
	case *cur.Median > *prev.Median:
		c.Change, c.Trend = "Slower than "+formatSeconds(prev.Median), "up"
	default:
		c.Change, c.Trend, c.Good = "Faster than "+formatSeconds(prev.Median), "down", true
	}
	return c
}

// formatSeconds writes a duration for people: 45 s, 12 min, 2 h 5 min, 3 d 4 h; "—" for none.
func formatSeconds(s *int64) string {
	if s == nil {
		return "—"
	}
	n := *s
	switch {
	case n < 60:
		return strconv.FormatInt(n, 10) + " s"
	case n < 3600:
		if n%60 == 0 || n >= 600 {
			return strconv.FormatInt(n/60, 10) + " min"
		}
		return fmt.Sprintf("%d min %d s", n/60, n%60)
	case n < 86400 && n%3600 < 60:
		return strconv.FormatInt(n/3600, 10) + " h"
	case n < 86400:
		return fmt.Sprintf("%d h %d min", n/3600, n%3600/60)
	case n%86400 < 3600:
		return strconv.FormatInt(n/86400, 10) + " d"
	}
	return fmt.Sprintf("%d d %d h", n/86400, n%86400/3600)
}

// periodWords writes a range of days: "Mar 6 – 12, 2026", "Feb 27 – Mar 5, 2026", "Mar 8, 2026".
func periodWords(from, to store.Date) string {
	a, b := from.Time(), to.Time()
	switch {
	case from == to:
		return b.Format("Mon Jan 2, 2006")
	case a.Year() != b.Year():
		return a.Format("Jan 2, 2006") + " – " + b.Format("Jan 2, 2006")
	case a.Month() != b.Month():
		return a.Format("Jan 2") + " – " + b.Format("Jan 2, 2006")
	}
	return a.Format("Jan 2") + " – " + b.Format("2, 2006")
}

func count(n int) string {
	s := strconv.Itoa(abs(n))
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if n < 0 {
		return "-" + s
	}
	return s
}

func percent(part, whole int) string {
	p := float64(part) * 100 / float64(whole)
	if p < 10 && p != float64(int(p)) {
		return strconv.FormatFloat(p, 'f', 1, 64) + " %"
	}
	return strconv.Itoa(int(p+0.5)) + " %"
}

func abs(n int) int { return max(n, -n) }

func maxInts(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
