package store

import (
	"bytes"
	"slices"
	"time"

	"github.com/oklog/ulid/v2"
	"switchboard/store/kv"
)

// ReportQuery asks for a workspace's figures over the days From to To (both included, in the
// workspace's time zone), compared with the period of the same length just before.
type ReportQuery struct {
	From, To Date
	NumberID string // only what happened on this number
	MemberID string // only this member's figures (a user id)
	TeamID   string // only the figures of this team's members
	ViewerID string // who asks: a member who is not an admin sees their own row only
	Admin    bool   // the viewer is an admin of the workspace (or a superuser)
}

// ReportTotals are the headline figures of a period.
type ReportTotals struct {
	Opened, Replied, Closed                 int
	Inbound, Outbound, Automatic, Broadcast int // outbound: sent by members
	Delivered, Failed                       int
	Failures                                [numFailureGroups]int // failed texts by FailureGroups
	OptOuts                                 int
	RuleFirings                             int
	Assigned                                int
	FirstResponse, Resolution               Durations
	FirstResponseBusiness                   Durations // in business hours (Report.BusinessHours)
	ResolutionBusiness                      Durations
}

// Sent is every text the team sent: by members, automatic and broadcast copies.
func (t *ReportTotals) Sent() int { return t.Outbound + t.Automatic + t.Broadcast }

// ReportDay is one day's figures.
type ReportDay struct {
	Date                                    Date
	Inbound, Outbound, Automatic, Broadcast int
	Delivered, Failed                       int
	Opened, Replied, Closed, OptOuts        int
	FirstResponse, Resolution               Durations
}

// ReportMember is a member's row.
type ReportMember struct {
	UserID                              string
	Assigned, Replied, Closed, Outbound int
	FirstResponse                       Durations
}

// ReportBroadcast is a broadcast started in the range, with what came of it.
type ReportBroadcast struct {
	ID, Name, Status, From string
	StartedAt              time.Time
	Sent, Delivered        int
	Failed                 int // copies that failed (landlines skipped included)
	Skipped                int // recipients skipped: opted out before it went
	Landline               int // recipients skipped as landlines (counted in Failed)
	Cancelled              int
	Replies, OptOuts       int
	Failures               [numFailureGroups]int // failed copies by FailureGroups
}

// Report is a workspace's figures for a range (ReportQuery).
type Report struct {
	From, To, PreviousFrom, PreviousTo Date
	Totals, Previous                   ReportTotals
	Days                               []ReportDay
	// Hours counts the contacts' texts by weekday (Monday first) and hour of the day.
	Hours [7][24]int
	// Bands sort first responses and resolutions by how long they took (ReportBands).
	FirstResponseBands, ResolutionBands [7]int
	Members                             []ReportMember
	Broadcasts                          []ReportBroadcast
	BusinessHours                       bool // the workspace keeps business hours
	// Building: the rollups are still being built from the records (BuildDone of BuildTotal):
	// the figures are not complete yet.
	Building              bool
	BuildDone, BuildTotal uint64
}

// reportBroadcastsListed bounds the broadcasts a report lists.
const reportBroadcastsListed = 100

// CheckReportRange refuses a range that ends before it starts or spans more than
// MaxReportDays.
func CheckReportRange(from, to Date) ValidationError {
	switch {
	case to < from:
		return ValidationError{{"to", "must be on or after from"}}
	case int(to-from)+1 > MaxReportDays:
		return ValidationError{{"to", "must be at most 400 days after from, both days included"}}
	}
	return nil
}

// checkReportFilter checks a report's number and member against the workspace.
func checkReportFilter(tx *kv.Tx, workspaceID, numberID, memberID string) ValidationError {
	var errs ValidationError
	if numberID != "" && tx.Bucket(bNumbers).Get(wsKeyChecked(workspaceID, numberID)) == nil {
		errs = append(errs, FieldError{"numberId", "is not a number of this workspace"})
	}
	if memberID != "" && !isMember(tx, workspaceID, memberID) {
		errs = append(errs, FieldError{"memberId", "is not a member of this workspace"})
	}
	return errs
}

// teamMembers is the members of the workspace's team teamID (from its routing), and whether
// the team exists.
func (s *Store) teamMembers(tx *kv.Tx, workspaceID, teamID string) ([]string, bool, error) {
	r, err := s.routingOf(tx, workspaceID)
	if err != nil {
		return nil, false, err
	}
	t, ok := r.Team(teamID)
	return t.Members, ok, nil
}

// Report reads the workspace's figures for q from the rollups. An unknown workspace is
// ErrNotFound; a bad range, number, member or team a ValidationError; a member who is not an
// admin asking for another member's or a team's figures ErrForbidden.
func (s *Store) Report(workspaceID string, q ReportQuery) (Report, error) {
	if errs := CheckReportRange(q.From, q.To); errs != nil {
		return Report{}, errs
	}
	n := q.To - q.From + 1
	rep := Report{From: q.From, To: q.To, PreviousFrom: q.From - n, PreviousTo: q.From - 1,
		Days: make([]ReportDay, n)}
	for i := range rep.Days {
		rep.Days[i].Date = q.From + Date(i)
	}
	err := s.view(func(tx *kv.Tx) error {
		if _, err := getWorkspace(tx, workspaceID); err != nil {
			return err
		}
		errs := checkReportFilter(tx, workspaceID, q.NumberID, q.MemberID)
		var team []string
		if q.TeamID != "" {
			var ok bool
			var err error
			if team, ok, err = s.teamMembers(tx, workspaceID, q.TeamID); err != nil {
				return err
			} else if !ok {
				errs = append(errs, FieldError{"teamId", "is not a team of this workspace"})
			}
		}
		if errs != nil {
			sortFieldErrors(errs)
			return errs
		}
		if !q.Admin && ((q.MemberID != "" && q.MemberID != q.ViewerID) || q.TeamID != "") {
			return errorf(ErrForbidden, "only admins see other members' figures")
		}
		// A number limited to teams the viewer is not in: its figures are not theirs to see.
		var hidden map[string]bool
		if !q.Admin {
			var err error
			if hidden, err = s.hiddenFrom(tx, workspaceID, q.ViewerID); err != nil {
				return err
			}
			if hidden[q.NumberID] {
				return errorf(ErrForbidden, numberNotAllowed)
			}
		}
		sel, err := newReportSelection(tx, workspaceID, q, team, hidden)
		if err != nil {
			return err
		}
		r, err := readWSReport(tx, sel.ws, s.routingOf)
		if err != nil {
			return err
		}
		rep.Building, rep.BuildDone, rep.BuildTotal = r.phase != buildNone, r.done, r.total
		rep.BusinessHours = r.hours != nil
		if err := sel.readRows(tx, &rep); err != nil {
			return err
		}
		if err := sel.readSamples(tx, &rep); err != nil {
			return err
		}
		return sel.readBroadcasts(tx, &rep, r.loc)
	})
	return rep, err
}

// reportSelection says which rollup rows a query reads.
type reportSelection struct {
	ws       ulid.ULID
	q        ReportQuery
	number   ulid.ULID          // zero: every number the viewer sees
	hidden   map[ulid.ULID]bool // the numbers the viewer may not see (limited to other teams)
	members  map[ulid.ULID]bool // the members whose rows make the totals; nil: the numbers' rows
	listed   []ulid.ULID        // the members of the members table, in order
	memberOf map[ulid.ULID]int  // index in listed
}

func newReportSelection(tx *kv.Tx, workspaceID string, q ReportQuery, team []string, hidden map[string]bool) (*reportSelection, error) {
	sel := &reportSelection{ws: uid(workspaceID), q: q, number: uid(q.NumberID), memberOf: map[ulid.ULID]int{}}
	for id := range hidden {
		if sel.hidden == nil {
			sel.hidden = map[ulid.ULID]bool{}
		}
		sel.hidden[uid(id)] = true
	}
	switch {
	case q.MemberID != "":
		sel.members = map[ulid.ULID]bool{uid(q.MemberID): true}
	case q.TeamID != "":
		sel.members = map[ulid.ULID]bool{}
		for _, m := range team {
			sel.members[uid(m)] = true
		}
	}
	// The members table lists the workspace's members (only the viewer, for a member who is
	// not an admin), narrowed by the member or team asked for.
	err := forEachPrefix(tx.Bucket(bMemberships), sel.ws[:], func(k, _ []byte) error {
		if len(k) != 32 {
			return nil
		}
		u := ulid.ULID(k[16:])
		if (sel.members != nil && !sel.members[u]) || (!q.Admin && u != uid(q.ViewerID)) {
			return nil
		}
		sel.memberOf[u] = len(sel.listed)
		sel.listed = append(sel.listed, u)
		return nil
	})
	return sel, err
}

// numberSeen reports whether a row of number counts in the query.
func (sel *reportSelection) numberSeen(number ulid.ULID) bool {
	if sel.number != (ulid.ULID{}) {
		return number == sel.number
	}
	return !sel.hidden[number]
}

// forTotals reports whether a row of member counts in the totals.
func (sel *reportSelection) forTotals(member ulid.ULID) bool {
	if sel.members == nil {
		return member == ulid.ULID{}
	}
	return sel.members[member]
}

// scan calls fn for each key of bucket name under the workspace from day from to day to whose
// number the query sees, with the key's day, member and value.
func (sel *reportSelection) scan(tx *kv.Tx, name []byte, from, to Date, fn func(day Date, member ulid.ULID, k, v []byte) error) error {
	fk, tk := from.key(), to.key()
	c := tx.Bucket(name).Cursor()
	for k, v := c.Seek(append(sel.ws[:], fk[:]...)); k != nil && bytes.HasPrefix(k, sel.ws[:]); k, v = c.Next() {
		if len(k) < 52 {
			continue
		}
		if bytes.Compare(k[16:20], tk[:]) > 0 {
			break
		}
		if !sel.numberSeen(ulid.ULID(k[20:36])) {
			continue
		}
		if err := fn(dateFromKey(k[16:20]), ulid.ULID(k[36:52]), k, v); err != nil {
			return err
		}
	}
	return nil
}

// readRows adds the day rows of both periods into rep.
func (sel *reportSelection) readRows(tx *kv.Tx, rep *Report) error {
	rep.Members = make([]ReportMember, len(sel.listed))
	for i, u := range sel.listed {
		rep.Members[i].UserID = u.String()
	}
	var row dayRow
	return sel.scan(tx, bReportDays, rep.PreviousFrom, rep.To, func(day Date, member ulid.ULID, _, v []byte) error {
		totals, listed := sel.forTotals(member), -1
		if i, ok := sel.memberOf[member]; ok && day >= rep.From {
			listed = i
		}
		if !totals && listed < 0 {
			return nil
		}
		row = dayRow{}
		if err := decodeRow(v, row[:]); err != nil {
			return err
		}
		if listed >= 0 {
			m := &rep.Members[listed]
			m.Assigned += int(row[rowAssigned])
			m.Replied += int(row[rowReplied])
			m.Closed += int(row[rowClosed])
			m.Outbound += int(row[rowOutUser])
		}
		if !totals {
			return nil
		}
		if day < rep.From {
			addTotals(&rep.Previous, &row)
			return nil
		}
		addTotals(&rep.Totals, &row)
		d := &rep.Days[day-rep.From]
		d.Inbound += int(row[rowInbound])
		d.Outbound += int(row[rowOutUser])
		d.Automatic += int(row[rowOutAuto])
		d.Broadcast += int(row[rowOutBroadcast])
		d.Delivered += int(row[rowDelivered])
		d.Failed += int(row[rowFailed])
		d.Opened += int(row[rowOpened])
		d.Replied += int(row[rowReplied])
		d.Closed += int(row[rowClosed])
		d.OptOuts += int(row[rowOptOuts])
		wd := (int(day.Weekday()) + 6) % 7 // Monday first
		for h := range 24 {
			rep.Hours[wd][h] += int(row[rowHour+h])
		}
		return nil
	})
}

func addTotals(t *ReportTotals, row *dayRow) {
	t.Inbound += int(row[rowInbound])
	t.Outbound += int(row[rowOutUser])
	t.Automatic += int(row[rowOutAuto])
	t.Broadcast += int(row[rowOutBroadcast])
	t.Delivered += int(row[rowDelivered])
	t.Failed += int(row[rowFailed])
	t.Opened += int(row[rowOpened])
	t.Replied += int(row[rowReplied])
	t.Closed += int(row[rowClosed])
	t.Assigned += int(row[rowAssigned])
	t.OptOuts += int(row[rowOptOuts])
	t.RuleFirings += int(row[rowRuleFirings])
	for g := range numFailureGroups {
		t.Failures[g] += int(row[rowFailGroup+g])
	}
}

// readSamples summarises the durations of both periods into rep.
func (sel *reportSelection) readSamples(tx *kv.Tx, rep *Report) error {
	var cur, prev [4][]uint32
	days := make([][2][]uint32, len(rep.Days))
	members := make([][]uint32, len(sel.listed))
	err := sel.scan(tx, bReportSamples, rep.PreviousFrom, rep.To, func(day Date, member ulid.ULID, k, v []byte) error {
		if len(k) != 53 || k[52] > sampleResolutionBusiness {
			return nil
		}
		kind := int(k[52])
		totals := sel.forTotals(member)
		i, listed := sel.memberOf[member]
		listed = listed && kind == sampleFirstResponse && day >= rep.From
		if !totals && !listed {
			return nil
		}
		secs, err := decodeSamples(v)
		if err != nil {
			return err
		}
		if listed {
			members[i] = append(members[i], secs...)
		}
		switch {
		case !totals:
		case day < rep.From:
			prev[kind] = append(prev[kind], secs...)
		default:
			cur[kind] = append(cur[kind], secs...)
			if kind <= sampleResolution {
				d := &days[day-rep.From][kind]
				*d = append(*d, secs...)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range cur[sampleFirstResponse] {
		rep.FirstResponseBands[band(s)]++
	}
	for _, s := range cur[sampleResolution] {
		rep.ResolutionBands[band(s)]++
	}
	for _, p := range []struct {
		t    *ReportTotals
		secs *[4][]uint32
	}{{&rep.Totals, &cur}, {&rep.Previous, &prev}} {
		p.t.FirstResponse, p.t.Resolution = summarise(p.secs[sampleFirstResponse]), summarise(p.secs[sampleResolution])
		p.t.FirstResponseBusiness = summarise(p.secs[sampleFirstResponseBusiness])
		p.t.ResolutionBusiness = summarise(p.secs[sampleResolutionBusiness])
	}
	for i := range rep.Days {
		rep.Days[i].FirstResponse, rep.Days[i].Resolution = summarise(days[i][0]), summarise(days[i][1])
	}
	for i := range rep.Members {
		rep.Members[i].FirstResponse = summarise(members[i])
	}
	return nil
}

// readBroadcasts lists the broadcasts started in the range, newest first, with their figures.
func (sel *reportSelection) readBroadcasts(tx *kv.Tx, rep *Report, loc *time.Location) error {
	rows := tx.Bucket(bReportBcasts)
	err := forEachPrefix(tx.Bucket(bBroadcasts), sel.ws[:], func(k, v []byte) error {
		var b Broadcast
		if err := jsonUnmarshal(v, &b); err != nil {
			return err
		}
		if b.StartedAt == nil {
			return nil
		}
		if day := DateOf(*b.StartedAt, loc); day < rep.From || day > rep.To {
			return nil
		}
		if !sel.numberSeen(uid(b.NumberID)) || (sel.members != nil && !sel.members[uid(b.CreatedByID)]) {
			return nil
		}
		var row bcastRow
		if err := decodeRow(rows.Get(k), row[:]); err != nil {
			return err
		}
		rb := ReportBroadcast{ID: b.ID, Name: b.Name, Status: b.Status, From: b.From, StartedAt: *b.StartedAt,
			Sent: b.TotalSent, Delivered: b.TotalDelivered, Failed: b.TotalFailed, Skipped: b.TotalOptedOut,
			Landline: b.TotalLandline, Cancelled: b.TotalCancelled, Replies: int(row[bcastReplies]), OptOuts: int(row[bcastOptOuts])}
		for g := range numFailureGroups {
			rb.Failures[g] = int(row[bcastFailGroup+g])
		}
		rep.Broadcasts = append(rep.Broadcasts, rb)
		return nil
	})
	slices.Reverse(rep.Broadcasts) // newest first: ids grow with time
	if len(rep.Broadcasts) > reportBroadcastsListed {
		rep.Broadcasts = rep.Broadcasts[:reportBroadcastsListed]
	}
	return err
}
