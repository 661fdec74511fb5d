package views

import (
	"strings"
	"testing"
)

func TestContactsSearch(t *testing.T) {
	html := render(t, Contacts(ContactsView{Q: "ada", Total: 2, Rows: []ContactRow{{ID: "c1", Name: "Ada Lovelace", Phone: "+14155550123", Email: "ada@example.com"}, {ID: "c2", Phone: "+14155550124"}}}))
	labelled(t, html)
	expect(t, html, `role="search"`, `<label for="contact-q">`, `value="ada"`, `<th scope="col">Name</th>`,
		`href="/contacts/c1" data-testid="contact-link">Ada Lovelace`, ">Unnamed<", `role="status" data-testid="contacts-count"`, "<strong>2</strong> contacts", ">New contact<", ">Export CSV<", `data-testid="contact-select"`)
	html = render(t, Contacts(ContactsView{Q: "zzz"}))
	expect(t, html, `data-testid="contacts-empty"`, "No contact matches “zzz”")
}

func TestContactForms(t *testing.T) {
	f := ContactForm{FirstName: "Ada", Phone: "555", Props: []PropField{{Name: "visits", Type: "number", Value: "x"}, {Name: "vip", Type: "boolean", Value: "true"}, {Name: "born", Type: "date"}},
		Errors: map[string]string{"phone": "Must be E.164", "properties.visits": "Must be a number"}}
	html := render(t, ContactNew(f))
	labelled(t, html)
	expect(t, html, "<h1>New contact</h1>", `action="/contacts/new"`, `value="555"`, `data-testid="error-phone"`, `aria-invalid="true"`,
		`type="number"`, `step="any"`, `data-testid="error-prop.visits"`, `<option value="true" selected>Yes</option>`, `type="date"`, ">Create contact<")

	v := ContactView{Name: "Ada Lovelace", OptedOut: true, Form: ContactForm{ID: "c1", FirstName: "Ada", Phone: "+14155550123"},
		Groups: []Option{{"g1", "Patients"}}, Others: []Option{{"g2", "VIP"}}, Conversations: []ContactConversation{{ID: "v1", From: "+14155550100", Status: "open", When: "09:30"}},
		Notice: "Contact saved.", Compliance: ContactCompliance{OptOutReason: "admin", CanLift: true}}
	html = render(t, App(frame(), Contact(v)))
	labelled(t, html)
	expect(t, html, `<h1 data-testid="contact-title">Ada Lovelace</h1>`, `data-testid="contact-opted-out"`, `role="status" data-testid="flash"`,
		`action="/contacts/c1"`, `data-testid="contact-phone-value"`, `href="/inbox/v1"`, "From +14155550100", `href="/groups/g1"`,
		">Remove from Patients<", `<label for="contact-group">Add to group</label>`, `<option value="g2">VIP</option>`, ">Lift the opt-out<", `name="reason"`, ">Save contact<")
	if strings.Contains(html, `name="phone"`) {
		t.Error("the edit form lets the phone be changed; the phone identifies the contact")
	}
}

func TestGroupPages(t *testing.T) {
	html := render(t, Groups(GroupsView{Groups: []GroupRow{{ID: "g1", Name: "Patients", Size: 12}}, Name: "Patients", Errors: map[string]string{"name": "Taken"}}))
	labelled(t, html)
	expect(t, html, "<h1>Groups</h1>", `<th scope="col" class="num">Members</th>`, `href="/groups/g1"`, ">12<", `data-testid="error-name"`, ">Create group<")
	v := GroupView{ID: "g1", Name: "Patients", Size: 1, Rename: "Patients", Phone: "555", Members: []GroupMember{{ID: "c1", Phone: "+14155550123"}},
		Errors: map[string]string{"phone": "Must be E.164", "confirm": "Tick the box"}, Error: "Not added"}
	html = render(t, Group(v))
	labelled(t, html)
	expect(t, html, `<h1 data-testid="group-title">Patients</h1>`, "1 member", `action="/groups/g1/members"`, `value="555"`, `data-testid="error-phone"`,
		">Remove +14155550123<", `action="/groups/g1/rename"`, `action="/groups/g1/delete"`, `<label for="group-delete-confirm">Yes, delete Patients</label>`,
		`data-testid="error-confirm"`, `role="alert" data-testid="form-error"`)
}

func TestBroadcastPages(t *testing.T) {
	html := render(t, Broadcasts(BroadcastsView{Rows: []BroadcastRow{{ID: "b1", Status: "sending", Sent: 5, Delivered: 4, Failed: 1, OptedOut: 2}}}))
	labelled(t, html)
	expect(t, html, "<h1>Broadcasts</h1>", ">Untitled broadcast</a>", `<th scope="col" class="num">Opted out</th>`, `<td data-label="Delivered" class="num">4</td>`, ">New broadcast<")

	v := ComposeView{Numbers: []Option{{"+14155550100", "+14155550100 (Front desk)"}}, Groups: []Option{{"g1", "Patients (2)"}}, Recent: []Option{{"v1", "Ada (+14155550123)"}},
		TimeZone: "Europe/Paris", SampleName: "Ada Lovelace", Sample: `{"firstName":"Ada"}`, Preview: "Hi Ada", Segments: 1, Encoding: "GSM-7",
		Form: ComposeForm{Text: "Hi {{firstName}}", GroupIDs: []string{"g1"}, Numbers: "555", Later: true, SendAt: "2026-12-01T09:00",
			Errors: map[string]string{"recipientsList": "555 is not a phone number", "text": "Unknown merge tag"}}}
	html = render(t, Compose(v))
	labelled(t, html)
	expect(t, html, "<h1>New broadcast</h1>", `<label for="bc-from">From number</label>`, "Hi {{firstName}}</textarea>", `data-sample="{&#34;firstName&#34;:&#34;Ada&#34;}"`,
		"Preview for Ada Lovelace", `data-testid="bc-preview" aria-live="polite">Hi Ada<`, "1 segment (GSM-7)", `value="g1" checked`, `name="excludeGroupIds"`,
		`value="v1"`, "555</textarea>", `data-testid="error-recipientsList"`, `data-testid="error-text"`, `id="bc-later" name="when" value="later" checked`,
		`type="datetime-local"`, `value="2026-12-01T09:00"`, "Europe/Paris", `<script src="/static/compose.js" defer>`)

	p := BroadcastProgress{ID: "b1", Status: "sending", Queued: 3, Sent: 1}
	html = render(t, Broadcast(BroadcastView{ID: "b1", Name: "Reminder", Text: "Hi", Targets: []string{"Groups: Patients"}, Progress: p}))
	labelled(t, html)
	expect(t, html, `<h1 data-testid="broadcast-title">Reminder</h1>`, `hx-get="/broadcasts/b1/progress"`, `hx-trigger="every 2s"`,
		`data-testid="count-queued">3<`, ">Cancel broadcast<", "Groups: Patients")
	p.Status, p.Outstanding = "sent", 0
	html = render(t, BroadcastProgressPanel(p))
	if strings.Contains(html, "hx-get") || strings.Contains(html, "Cancel broadcast") {
		t.Error("a finished broadcast still polls or offers Cancel")
	}
}
