package store

import (
	"slices"
	"time"

	"switchboard/store/kv"
)

// ReferenceReport computes the report of q from the raw records alone, the slow way and apart
// from the rollups and their machine: each figure is read off the conversation's records by its
// definition (DESIGN §24, docs/reports.md), then summed. Tests compare it with Report.
func ReferenceReport(s *Store, workspaceID string, q ReportQuery) (Report, error) {
	var evs []refEvent
	var bcasts []Broadcast
	var members []string
	var loc *time.Location
	var rt Routing
	err := s.view(func(tx *kv.Tx) error {
		w, err := getWorkspace(tx, workspaceID)
		if err != nil {
			return err
		}
		loc = w.Location()
		if rt, err = readRouting(tx, workspaceID); err != nil {
			return err
		}
		// Business hours: the number's own, else the workspace's, when any are set at all.
		keeps := !rt.Hours.IsZero()
		for _, n := range rt.Numbers {
			keeps = keeps || (n.Hours != nil && !n.Hours.IsZero())
		}
		business := func(number string, start, end time.Time) (uint32, bool) {
			if !keeps {
				return 0, false
			}
			h := rt.HoursOf(number)
			return durationSeconds(start, start.Add(h.Within(start, end, loc))), true
		}
		if err := forEachPrefix(tx.Bucket(bConversations), idKey(workspaceID), func(_, v []byte) error {
			var c Conversation
			if err := jsonUnmarshal(v, &c); err != nil {
				return err
			}
			ce, err := refConversation(tx, &c, business)
			evs = append(evs, ce...)
			return err
		}); err != nil {
			return err
		}
		if err := forEachPrefix(tx.Bucket(bOptOuts), idKey(workspaceID), func(_, v []byte) error {
			var o OptOut
			if err := jsonUnmarshal(v, &o); err != nil {
				return err
			}
			evs = append(evs, refEvent{at: o.CreatedAt, number: o.NumberID, what: "optOut", broadcast: o.BroadcastID})
			return nil
		}); err != nil {
			return err
		}
		if err := forEachPrefix(tx.Bucket(bBroadcasts), idKey(workspaceID), func(_, v []byte) error {
			var b Broadcast
			err := jsonUnmarshal(v, &b)
			bcasts = append(bcasts, b)
			return err
		}); err != nil {
			return err
		}
		return forEachPrefix(tx.Bucket(bMemberships), idKey(workspaceID), func(k, _ []byte) error {
			members = append(members, idFromKey(k))
			return nil
		})
	})
	if err != nil {
		return Report{}, err
	}
	rep := refAggregate(evs, bcasts, members, loc, q, &rt)
	return rep, nil
}

// refEvent is one thing a figure counts: what, when, on which number, credited to whom.
type refEvent struct {
	at        time.Time
	number    string
	members   []string
	what      string // inbound, outUser, outAuto, outBroadcast, delivered, failed, opened, replied, closed, assigned, optOut, firstResponse, resolution, bcastReply, ruleFiring
	secs      uint32
	bsecs     uint32 // firstResponse, resolution: the part in business hours
	business  bool   // bsecs is measured (the workspace keeps business hours)
	group     int
	broadcast string
}

type refItem struct {
	id  string
	m   *Message
	e   *ConversationEntry
	at  time.Time
	out bool
}

func refConversation(tx *kv.Tx, c *Conversation, business func(number string, start, end time.Time) (uint32, bool)) ([]refEvent, error) {
	var items []refItem
	for _, id := range idxIDs(tx.Bucket(bConvMessages), c.WorkspaceID, c.ID) {
		var m Message
		if ok, err := getJSON(tx.Bucket(bMessages), wsKey(c.WorkspaceID, id), &m); err != nil || !ok {
			return nil, err
		}
		if m.Status == MessageCancelled || (!m.Outbound && m.Blocked) {
			continue // they count nowhere
		}
		items = append(items, refItem{id: m.ID, m: &m, at: m.CreatedAt})
	}
	for _, id := range idxIDs(tx.Bucket(bConvMessages), c.WorkspaceID, entryTerm(c.ID)) {
		var e ConversationEntry
		if ok, err := getJSON(tx.Bucket(bConvEntries), wsKey(c.WorkspaceID, id), &e); err != nil || !ok {
			return nil, err
		}
		items = append(items, refItem{id: e.ID, e: &e, at: e.CreatedAt})
	}
	slices.SortFunc(items, func(a, b refItem) int { return compareStrings(a.id, b.id) })
	isInbound := func(it refItem) bool { return it.m != nil && !it.m.Outbound }
	isUser := func(it refItem) bool {
		return it.m != nil && it.m.Outbound && it.m.BroadcastID == "" && it.m.AuthorID != ""
	}
	isCopy := func(it refItem) bool { return it.m != nil && it.m.Outbound && it.m.BroadcastID != "" }
	// A status entry, a person's or a rule firing's that changed the status.
	isStatus := func(it refItem) bool {
		return it.e != nil && (it.e.Kind == EntryStatus || it.e.Kind == EntrySnoozeUp || (it.e.Kind == EntryRule && it.e.Status != ""))
	}
	isClose := func(it refItem) bool { return isStatus(it) && it.e.Status == ConversationClosed }
	isOpen := func(it refItem) bool { return isInbound(it) || (isStatus(it) && it.e.Status != ConversationClosed) }
	// An entry that changed the assignees: a person's, auto-assignment's, a rule firing's.
	isAssign := func(it refItem) bool {
		return it.e != nil && (it.e.Kind == EntryAssign || it.e.Kind == EntryAutoAssign || it.e.Kind == EntryRule)
	}
	// The assignees just before item i: the assignment entries before it, replayed.
	assigneesBefore := func(i int) []string {
		var as []string
		for _, it := range items[:i] {
			if isAssign(it) {
				as = slices.DeleteFunc(as, func(a string) bool { return slices.Contains(it.e.Removed, a) })
				for _, a := range it.e.Added {
					if !slices.Contains(as, a) {
						as = append(as, a)
					}
				}
			}
		}
		return as
	}
	credit := func(u string) []string {
		if u == "" {
			return nil
		}
		return []string{u}
	}
	n := c.OutboundChannelID
	var evs []refEvent

	// Messages, by kind and outcome.
	for i, it := range items {
		m := it.m
		if m == nil {
			continue
		}
		if !m.Outbound {
			evs = append(evs, refEvent{at: m.CreatedAt, number: m.NumberID, members: assigneesBefore(i), what: "inbound"})
			continue
		}
		what := "outAuto"
		if m.BroadcastID != "" {
			what = "outBroadcast"
		} else if m.AuthorID != "" {
			what = "outUser"
		}
		evs = append(evs, refEvent{at: m.CreatedAt, number: m.NumberID, members: credit(m.AuthorID), what: what})
		switch m.Status {
		case MessageDelivered:
			evs = append(evs, refEvent{at: m.CreatedAt, number: m.NumberID, members: credit(m.AuthorID), what: "delivered"})
		case MessageFailed:
			evs = append(evs, refEvent{at: m.CreatedAt, number: m.NumberID, members: credit(m.AuthorID), what: "failed",
				group: failureGroupOf(m.ProviderErr), broadcast: m.BroadcastID})
		}
	}

	// Opened: the first time it is open — its creation unless created closed, else the first
	// text from the contact or change of status to anything but closed.
	if !c.CreatedClosed {
		evs = append(evs, refEvent{at: c.CreatedAt, number: n, what: "opened"})
	} else if i := slices.IndexFunc(items, isOpen); i >= 0 {
		evs = append(evs, refEvent{at: items[i].at, number: n, members: assigneesBefore(i), what: "opened"})
	}

	// Replied: a member's text with a contact's text since the member texts before it.
	last := -1
	for i, it := range items {
		if !isUser(it) {
			continue
		}
		if slices.ContainsFunc(items[last+1:i], isInbound) {
			evs = append(evs, refEvent{at: it.at, number: n, members: credit(it.m.AuthorID), what: "replied"})
		}
		last = i
	}

	// First response: the first member's text after the contact's first text.
	if first := slices.IndexFunc(items, isInbound); first >= 0 {
		if j := slices.IndexFunc(items[first:], isUser); j >= 0 {
			u := items[first+j]
			b, ok := business(n, items[first].at, u.at)
			evs = append(evs, refEvent{at: u.at, number: n, members: credit(u.m.AuthorID), what: "firstResponse",
				secs: durationSeconds(items[first].at, u.at), bsecs: b, business: ok})
		}
	}

	// Closes, and the resolution time of each: from the first opening after the close before.
	prev := -1
	for i, it := range items {
		if !isClose(it) {
			continue
		}
		evs = append(evs, refEvent{at: it.at, number: n, members: credit(it.e.UserID), what: "closed"})
		start, ok := time.Time{}, false
		if prev < 0 && !c.CreatedClosed {
			start, ok = c.CreatedAt, true
		} else if j := slices.IndexFunc(items[prev+1:i], isOpen); j >= 0 {
			start, ok = items[prev+1+j].at, true
		}
		if ok {
			b, inHours := business(n, start, it.at)
			evs = append(evs, refEvent{at: it.at, number: n, members: credit(it.e.UserID), what: "resolution",
				secs: durationSeconds(start, it.at), bsecs: b, business: inHours})
		}
		prev = i
	}

	// Assignments, and rule firings.
	for _, it := range items {
		if isAssign(it) {
			for _, a := range it.e.Added {
				evs = append(evs, refEvent{at: it.at, number: n, members: []string{a}, what: "assigned"})
			}
		}
		if it.e != nil && it.e.Kind == EntryRule {
			evs = append(evs, refEvent{at: it.at, number: n, what: "ruleFiring"})
		}
	}

	// Replies to broadcasts: the contact's first text after a copy that was the team's latest.
	for i, it := range items {
		if !isInbound(it) {
			continue
		}
		t := -1
		for j := i - 1; j >= 0; j-- {
			if isUser(items[j]) || isCopy(items[j]) {
				t = j
				break
			}
		}
		if t >= 0 && isCopy(items[t]) && !slices.ContainsFunc(items[t+1:i], isInbound) {
			evs = append(evs, refEvent{at: it.at, what: "bcastReply", broadcast: items[t].m.BroadcastID})
		}
	}
	return evs, nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// refAggregate sums the events q selects into a Report, as the definitions say: the totals of
// the numbers seen, or of the members asked for (an event counts once per member it credits).
func refAggregate(evs []refEvent, bcasts []Broadcast, members []string, loc *time.Location, q ReportQuery, rt *Routing) Report {
	n := q.To - q.From + 1
	rep := Report{From: q.From, To: q.To, PreviousFrom: q.From - n, PreviousTo: q.From - 1, Days: make([]ReportDay, n)}
	for i := range rep.Days {
		rep.Days[i].Date = q.From + Date(i)
	}
	rep.Members = []ReportMember{}
	var team map[string]bool
	if q.MemberID != "" {
		team = map[string]bool{q.MemberID: true}
	}
	if t, ok := rt.Team(q.TeamID); ok && q.TeamID != "" {
		team = map[string]bool{}
		for _, m := range t.Members {
			team[m] = true
		}
	}
	// The numbers limited to teams the viewer (not an admin) is not in.
	hidden := map[string]bool{}
	for id, nr := range rt.Numbers {
		in := q.Admin || len(nr.Teams) == 0
		for _, tid := range nr.Teams {
			t, _ := rt.Team(tid)
			in = in || slices.Contains(t.Members, q.ViewerID)
		}
		hidden[id] = !in
	}
	for _, e := range evs {
		rep.BusinessHours = rep.BusinessHours || e.business
	}
	for _, m := range members {
		if (team == nil || team[m]) && (q.Admin || m == q.ViewerID) {
			rep.Members = append(rep.Members, ReportMember{UserID: m})
		}
	}
	weight := func(e *refEvent) int {
		if (q.NumberID != "" && e.number != q.NumberID) || hidden[e.number] {
			return 0
		}
		if team == nil {
			return 1
		}
		w := 0
		for _, m := range e.members {
			if team[m] {
				w++
			}
		}
		return w
	}
	var fr, res, pfr, pres []uint32
	var bfr, bres, pbfr, pbres []uint32
	dayFR, dayRes := make([][]uint32, n), make([][]uint32, n)
	memberFR := make([][]uint32, len(rep.Members))
	replies, optOuts := map[string]int{}, map[string]int{}
	bfail := map[string]*[numFailureGroups]int{}
	for i := range evs {
		e := &evs[i]
		day := DateOf(e.at, loc)
		switch e.what {
		case "bcastReply":
			replies[e.broadcast]++
			continue
		case "optOut":
			if e.broadcast != "" {
				optOuts[e.broadcast]++
			}
		case "failed":
			if e.broadcast != "" {
				if bfail[e.broadcast] == nil {
					bfail[e.broadcast] = &[numFailureGroups]int{}
				}
				bfail[e.broadcast][e.group]++
			}
		}
		if day < rep.PreviousFrom || day > rep.To {
			continue
		}
		if day >= rep.From && (q.NumberID == "" || e.number == q.NumberID) && !hidden[e.number] {
			for mi := range rep.Members {
				m := &rep.Members[mi]
				if !slices.Contains(e.members, m.UserID) {
					continue
				}
				switch e.what {
				case "assigned":
					m.Assigned++
				case "replied":
					m.Replied++
				case "closed":
					m.Closed++
				case "outUser":
					m.Outbound++
				case "firstResponse":
					memberFR[mi] = append(memberFR[mi], e.secs)
				}
			}
		}
		w := weight(e)
		if w == 0 {
			continue
		}
		t := &rep.Totals
		if day < rep.From {
			t = &rep.Previous
		}
		for range w {
			switch e.what {
			case "inbound":
				t.Inbound++
			case "outUser":
				t.Outbound++
			case "outAuto":
				t.Automatic++
			case "outBroadcast":
				t.Broadcast++
			case "delivered":
				t.Delivered++
			case "failed":
				t.Failed++
				t.Failures[e.group]++
			case "opened":
				t.Opened++
			case "replied":
				t.Replied++
			case "closed":
				t.Closed++
			case "assigned":
				t.Assigned++
			case "optOut":
				t.OptOuts++
			case "ruleFiring":
				t.RuleFirings++
			case "firstResponse":
				if day < rep.From {
					pfr = append(pfr, e.secs)
				} else {
					fr = append(fr, e.secs)
					dayFR[day-rep.From] = append(dayFR[day-rep.From], e.secs)
				}
				if e.business && day < rep.From {
					pbfr = append(pbfr, e.bsecs)
				} else if e.business {
					bfr = append(bfr, e.bsecs)
				}
			case "resolution":
				if day < rep.From {
					pres = append(pres, e.secs)
				} else {
					res = append(res, e.secs)
					dayRes[day-rep.From] = append(dayRes[day-rep.From], e.secs)
				}
				if e.business && day < rep.From {
					pbres = append(pbres, e.bsecs)
				} else if e.business {
					bres = append(bres, e.bsecs)
				}
			}
			if day < rep.From {
				continue
			}
			d := &rep.Days[day-rep.From]
			switch e.what {
			case "inbound":
				d.Inbound++
				rep.Hours[(int(day.Weekday())+6)%7][e.at.In(loc).Hour()]++
			case "outUser":
				d.Outbound++
			case "outAuto":
				d.Automatic++
			case "outBroadcast":
				d.Broadcast++
			case "delivered":
				d.Delivered++
			case "failed":
				d.Failed++
			case "opened":
				d.Opened++
			case "replied":
				d.Replied++
			case "closed":
				d.Closed++
			case "optOut":
				d.OptOuts++
			}
		}
	}
	for _, s := range fr {
		rep.FirstResponseBands[band(s)]++
	}
	for _, s := range res {
		rep.ResolutionBands[band(s)]++
	}
	rep.Totals.FirstResponse, rep.Totals.Resolution = summarise(fr), summarise(res)
	rep.Previous.FirstResponse, rep.Previous.Resolution = summarise(pfr), summarise(pres)
	rep.Totals.FirstResponseBusiness, rep.Totals.ResolutionBusiness = summarise(bfr), summarise(bres)
	rep.Previous.FirstResponseBusiness, rep.Previous.ResolutionBusiness = summarise(pbfr), summarise(pbres)
	for i := range rep.Days {
		rep.Days[i].FirstResponse, rep.Days[i].Resolution = summarise(dayFR[i]), summarise(dayRes[i])
	}
	for i := range rep.Members {
		rep.Members[i].FirstResponse = summarise(memberFR[i])
	}
	for i := len(bcasts) - 1; i >= 0; i-- {
		b := bcasts[i]
		if b.StartedAt == nil {
			continue
		}
		if day := DateOf(*b.StartedAt, loc); day < q.From || day > q.To || (q.NumberID != "" && b.NumberID != q.NumberID) || hidden[b.NumberID] ||
			(team != nil && !team[b.CreatedByID]) {
			continue
		}
		rb := ReportBroadcast{ID: b.ID, Name: b.Name, Status: b.Status, From: b.From, StartedAt: *b.StartedAt,
			Sent: b.TotalSent, Delivered: b.TotalDelivered, Failed: b.TotalFailed, Skipped: b.TotalOptedOut,
			Landline: b.TotalLandline, Cancelled: b.TotalCancelled, Replies: replies[b.ID], OptOuts: optOuts[b.ID]}
		if f := bfail[b.ID]; f != nil {
			rb.Failures = *f
		}
		rep.Broadcasts = append(rep.Broadcasts, rb)
	}
	return rep
}
