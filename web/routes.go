package web

import (
	"net/http"
	"strings"
)

// uiPage is a page or form handler of the admin UI: it runs after page() has loaded the
// signed-in user and checked the role the route needs.
type uiPage func(http.ResponseWriter, *http.Request, *ui)

// routes is the one route table of the server, grouped by URL: the integration API, OAuth,
// the carrier callbacks, health, documentation, static files and media, the operator's
// streams under /admin, then (with sessions) sign-in and the admin UI page family by page
// family, then the middleware every request goes through. Routes whose part is not
// configured (no Receiver, no Sessions, no OAuth, no OpenAPI, no Static) are left out, so
// those paths answer 404.
func (h *Handler) routes() http.Handler {
	mux := http.NewServeMux()

	// Browser form posts go through http.CrossOriginProtection; the API, the token and
	// revocation endpoints and the carrier callbacks do not, since their callers send no
	// cookies (and browser-based public OAuth clients call cross-origin).
	forms := h.crossOrigin()
	// get and post register an admin UI page or form: page() checks the session and the role
	// the route needs (a signed-out GET goes to the sign-in page and back).
	get := func(pattern string, need int, fn uiPage) { mux.Handle("GET "+pattern, h.page(need, fn)) }
	post := func(pattern string, need int, fn uiPage) {
		mux.Handle("POST "+pattern, forms.Handler(h.page(need, fn)))
	}
	// su restricts a page to the superusers of the installation.
	su := h.superuserOnly

	// ---- the integration API: POST {stage}/integrations/developer/{provider}/<action> ----
	api := "/" + h.cfg.Stage + "/integrations/developer/{provider}/"
	for _, a := range h.actions() {
		mux.Handle("POST "+api+a.name, h.api(a.fn))
	}
	mux.HandleFunc(api+"{action}", h.unknownAction) // unknown action, or not a POST
	mux.HandleFunc("/"+h.cfg.Stage+"/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not found") // the API's 404 is JSON too
	})

	// ---- OAuth 2.0 authorization server (handlers are the oauth package's) ----
	// Its sign-in page, /oauth/login, is the browser session's and stands with sign-in below.
	if p := h.cfg.OAuth; p != nil {
		mux.HandleFunc("GET /oauth/authorize", p.Authorize)
		mux.Handle("POST /oauth/authorize", forms.Handler(http.HandlerFunc(p.Authorize))) // the consent form
		mux.HandleFunc("POST /oauth/token", p.Token)
		mux.HandleFunc("POST /oauth/revoke", p.Revoke)
		mux.HandleFunc("GET /.well-known/oauth-authorization-server", h.oauthMetadata) // RFC 8414
	}

	// ---- carrier callbacks (signed by the carrier, no session) ----
	if h.cfg.Receiver != nil {
		mux.HandleFunc("POST /carrier/twilio/sms", h.twilioSMS)
		mux.HandleFunc("POST /carrier/twilio/status", h.twilioStatus)
		mux.HandleFunc("POST /carrier/twilio/voice", h.twilioVoice)
		mux.HandleFunc("POST /carrier/sandbox/sms", h.sandboxSMS)
		mux.HandleFunc("POST /carrier/sandbox/voice", h.sandboxVoice)
		mux.HandleFunc("POST /carrier/telnyx/webhook", h.telnyxWebhook) // Ed25519-signed
	}

	// ---- health and metrics ----
	mux.HandleFunc("GET /healthz", h.healthz)
	mux.HandleFunc("GET /readyz", h.readyz)
	if h.cfg.Cluster != nil {
		mux.HandleFunc("GET /cluster/peer", h.clusterPeer) // where `switchboard cluster` finds the peer channel
	}
	mux.Handle("GET /metrics", h.metrics.handler(h.cfg.Registry))

	// ---- API documentation ----
	if h.cfg.OpenAPI != nil {
		mux.HandleFunc("GET /openapi.json", h.openAPI)
		mux.HandleFunc("GET /docs", h.docs)
	}

	// ---- static files ----
	if h.cfg.Static != nil {
		files := http.FileServerFS(h.cfg.Static)
		mux.Handle("GET /static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Cache-Control", "public, max-age=3600")
			files.ServeHTTP(w, r)
		}))
		// ---- the installable app: manifest, service worker, offline page ----
		mux.HandleFunc("GET /manifest.webmanifest", h.webManifest)
		mux.HandleFunc("GET /sw.js", h.serviceWorker)
		mux.HandleFunc("GET "+offlinePath, h.offlinePage)
		// Browsers ask for /favicon.ico whatever the page's <link rel="icon"> says.
		mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "public, max-age=86400")
			http.ServeFileFS(w, r, h.cfg.Static, "static/favicon.svg")
		})
	}

	// ---- media (MMS attachments): served without sign-in, the random token is the key ----
	mux.HandleFunc("GET /media/{token}/{name}", h.serveMedia)

	// ---- the operator's streams under /admin, with a bearer token ----
	// The backup stream (`switchboard backup`); without a token, the superuser's backup page
	// (h.backupPage, set below when the UI is on).
	mux.HandleFunc("GET /admin/backup", h.backup)
	// The CLI's contacts export and import while a server runs, guarded like the backup stream.
	mux.HandleFunc("GET /admin/contacts/export", h.adminExportContacts)
	mux.HandleFunc("POST /admin/contacts/import", h.adminImportContacts)
	if h.cfg.AdminRun != nil {
		mux.HandleFunc("POST /admin/run", h.adminRun) // `switchboard admin …` while the server holds the file
	}

	if ss := h.cfg.Sessions; ss != nil {
		// ---- the browser session: sign-in, sign-out, first-run setup ----
		mux.HandleFunc("GET /login", ss.loginPage)
		mux.Handle("POST /login", forms.Handler(http.HandlerFunc(ss.login)))
		mux.Handle("POST /logout", forms.Handler(http.HandlerFunc(ss.logout)))
		// The OAuth provider's names for the same pages.
		mux.HandleFunc("GET /oauth/login", ss.loginPage)
		mux.Handle("POST /oauth/login", forms.Handler(http.HandlerFunc(ss.login)))
		mux.Handle("POST /oauth/logout", forms.Handler(http.HandlerFunc(ss.logout)))
		mux.HandleFunc("GET /setup", ss.setupPage)
		mux.Handle("POST /setup", forms.Handler(http.HandlerFunc(ss.setup)))
		// The second factor at sign-in, its enrolment when required, password reset, and the link
		// that confirms a new e-mail address.
		mux.HandleFunc("GET /login/code", ss.codePage)
		mux.Handle("POST /login/code", forms.Handler(http.HandlerFunc(ss.code)))
		mux.HandleFunc("GET /login/enrol", ss.enrolPage)
		mux.Handle("POST /login/enrol", forms.Handler(http.HandlerFunc(ss.enrol)))
		mux.HandleFunc("GET /forgot", ss.forgotPage)
		mux.Handle("POST /forgot", forms.Handler(http.HandlerFunc(ss.forgot)))
		mux.HandleFunc("GET /reset/{token}", ss.resetPage)
		mux.Handle("POST /reset/{token}", forms.Handler(ss.resetWith(h.disconnectApps)))
		mux.HandleFunc("GET /email-change/{token}", ss.emailChangePage)
		mux.Handle("POST /email-change/{token}", forms.Handler(http.HandlerFunc(ss.emailChangeConfirm)))
		// The invitation link works signed out too (a new account), so it is not a page() route.
		mux.HandleFunc("GET /invite/{token}", h.invitePage)
		mux.Handle("POST /invite/{token}", forms.Handler(http.HandlerFunc(h.acceptInvite)))

		// ---- UI: home and the workspace switcher ----
		mux.HandleFunc("GET /{$}", h.root)
		post("/workspace", roleSignedIn, h.switchWorkspace)
		post("/workspaces", roleSignedIn, h.createWorkspace)

		// ---- UI: the inbox, its threads and their live updates ----
		get("/inbox", roleSignedIn, h.inbox)
		post("/inbox", roleMember, h.newConversation)
		get("/inbox/list", roleMember, h.inboxList)
		get("/inbox/unread", roleMember, h.unreadCount)
		get("/inbox/export", roleMember, h.inboxExport)
		mux.HandleFunc("GET /events", h.events) // the push stream; its own session check: 401, not a redirect
		get("/inbox/{conversation}", roleMember, h.thread)
		get("/inbox/{conversation}/snippet", roleMember, h.threadSnippet)
		get("/inbox/{conversation}/items", roleMember, h.threadItems)
		post("/inbox/{conversation}/reply", roleMember, h.threadReply)
		post("/inbox/{conversation}/comment", roleMember, h.threadComment)
		post("/inbox/{conversation}/assign", roleMember, h.threadAssign)
		post("/inbox/{conversation}/labels", roleMember, h.threadLabels)
		post("/inbox/{conversation}/status", roleMember, h.threadStatus)
		post("/inbox/{conversation}/close", roleMember, h.threadClose)
		post("/inbox/{conversation}/reopen", roleMember, h.threadReopen)
		post("/inbox/{conversation}/snooze", roleMember, h.threadSnooze)
		post("/inbox/{conversation}/unread", roleMember, h.threadMarkUnread)
		post("/inbox/{conversation}/block", roleMember, h.threadBlock)
		post("/inbox/{conversation}/simulate", roleMember, h.threadSimulate)
		post("/inbox/{conversation}/optout", roleMember, h.threadOptOut)
		post("/inbox/{conversation}/messages/{message}/cancel", roleMember, h.threadCancelMessage)
		post("/inbox/{conversation}/assist", roleMember, h.threadAssist) // a stream of the model's answer

		// ---- UI: contacts, with bulk actions, export and import ----
		get("/contacts", roleMember, h.contacts)
		get("/contacts/new", roleMember, h.contactNew)
		post("/contacts/new", roleMember, h.contactCreate)
		get("/contacts/suggest", roleMember, h.contactSuggest)
		post("/contacts/bulk", roleMember, h.contactsBulk)
		get("/contacts/export", roleMember, h.contactsExport)
		get("/contacts/import", roleMember, h.contactImport)
		post("/contacts/import", roleMember, h.contactImportUpload)
		get("/contacts/import/jobs/{job}", roleMember, h.contactImportJob)
		post("/contacts/import/jobs/{job}", roleMember, h.contactImportMap)
		get("/contacts/import/jobs/{job}/progress", roleMember, h.contactImportProgress)
		get("/contacts/import/jobs/{job}/errors.csv", roleMember, h.contactImportErrors)
		get("/contacts/{contact}", roleMember, h.contact)
		post("/contacts/{contact}", roleMember, h.contactSave)
		post("/contacts/{contact}/message", roleMember, h.contactMessage)
		post("/contacts/{contact}/groups", roleMember, h.contactGroupAdd)
		post("/contacts/{contact}/groups/remove", roleMember, h.contactGroupRemove)
		post("/contacts/{contact}/optout", roleMember, h.contactOptOut)
		post("/contacts/{contact}/consent", roleMember, h.contactConsent)
		post("/contacts/{contact}/delete", roleMember, h.contactDelete)

		// ---- UI: groups ----
		get("/groups", roleMember, h.groups)
		post("/groups", roleMember, h.groupCreate)
		get("/groups/{group}", roleMember, h.group)
		post("/groups/{group}/rename", roleMember, h.groupRename)
		post("/groups/{group}/delete", roleMember, h.groupDelete)
		post("/groups/{group}/members", roleMember, h.groupMemberAdd)
		post("/groups/{group}/members/remove", roleMember, h.groupMemberRemove)

		// ---- UI: broadcasts ----
		get("/broadcasts", roleMember, h.broadcasts)
		get("/broadcasts/new", roleMember, h.broadcastNew)
		post("/broadcasts/new", roleMember, h.broadcastCreate)
		post("/broadcasts/new/preview", roleMember, h.broadcastPreview)
		get("/broadcasts/{broadcast}", roleMember, h.broadcast)
		get("/broadcasts/{broadcast}/progress", roleMember, h.broadcastProgress)
		post("/broadcasts/{broadcast}/cancel", roleMember, h.broadcastCancel)
		post("/broadcasts/{broadcast}/resume", roleAdmin, h.broadcastResume)

		// ---- UI: reports (members see the totals and their own row) ----
		get("/reports", roleMember, h.reports)
		get("/reports.csv", roleMember, h.reportsCSV)

		// ---- UI: workspace settings (admins) ----
		get("/settings", roleSignedIn, h.settingsHome)
		get("/settings/workspace", roleAdmin, h.settingsWorkspace)
		post("/settings/workspace", roleAdmin, h.saveWorkspace)
		get("/settings/numbers", roleAdmin, h.settingsNumbers)
		post("/settings/numbers", roleAdmin, h.addNumber)
		post("/settings/numbers/{number}/rename", roleAdmin, h.renameNumber)
		post("/settings/numbers/{number}/active", roleAdmin, h.setNumberActive)
		post("/settings/numbers/{number}/registration", roleAdmin, h.setNumberRegistration)
		post("/settings/numbers/{number}/daily-cap", roleAdmin, h.setNumberDailyCap)
		// Numbers of a connected carrier account: add, buy, check and release; removing a number
		// clears its webhooks when an account is in use.
		if h.cfg.Accounts != nil {
			get("/settings/numbers/add", roleAdmin, h.carrierNumbers)
			post("/settings/numbers/add", roleAdmin, h.addCarrierNumber)
			get("/settings/numbers/buy", roleAdmin, h.buyNumberSearch)
			post("/settings/numbers/buy", roleAdmin, h.buyNumber)
			get("/settings/numbers/release", roleAdmin, h.numberReleasePage)
			post("/settings/numbers/release", roleAdmin, h.numberRelease)
			get("/settings/numbers/{number}/check", roleAdmin, h.numberCheckPage)
			post("/settings/numbers/{number}/check", roleAdmin, h.numberCheck)
		}
		get("/settings/numbers/{number}/remove", roleAdmin, h.numberRemovePage)
		post("/settings/numbers/{number}/remove", roleAdmin, h.numberRemove)
		get("/settings/properties", roleAdmin, h.settingsProperties)
		post("/settings/properties", roleAdmin, h.addProperty)
		get("/settings/members", roleAdmin, h.settingsMembers)
		post("/settings/members", roleAdmin, h.invite)
		post("/settings/members/{user}/remove", roleAdmin, h.removeMember)
		post("/settings/members/{user}/role", roleAdmin, h.setMemberRole)
		post("/settings/members/invitations/{invitation}/revoke", roleAdmin, h.revokeInvitation)
		get("/settings/snippets", roleAdmin, h.settingsSnippets)
		post("/settings/snippets", roleAdmin, h.saveSnippet)
		post("/settings/snippets/{shortcut}/delete", roleAdmin, h.deleteSnippet)
		// Business hours and automatic replies, teams and number access, the automation rules.
		get("/settings/hours", roleAdmin, h.settingsHours)
		post("/settings/hours", roleAdmin, h.saveHours)
		post("/settings/hours/replies", roleAdmin, h.saveAutoReplies)
		post("/settings/hours/first-response", roleAdmin, h.saveFirstResponse)
		post("/settings/hours/numbers/{number}", roleAdmin, h.saveNumberHours)
		get("/settings/teams", roleAdmin, h.settingsTeams)
		post("/settings/teams", roleAdmin, h.createTeam)
		post("/settings/teams/numbers/{number}", roleAdmin, h.saveNumberAccess)
		post("/settings/teams/{team}", roleAdmin, h.saveTeam)
		post("/settings/teams/delete/{team}", roleAdmin, h.deleteTeam)
		get("/settings/automations", roleAdmin, h.settingsAutomations)
		get("/settings/automations/new", roleAdmin, h.ruleNew)
		post("/settings/automations/new", roleAdmin, h.ruleCreate)
		get("/settings/automations/export", roleAdmin, h.rulesExport)
		post("/settings/automations/import", roleAdmin, h.rulesImport)
		get("/settings/automations/{rule}", roleAdmin, h.ruleEdit)
		post("/settings/automations/{rule}", roleAdmin, h.ruleSave)
		get("/settings/automations/{rule}/export", roleAdmin, h.ruleExport)
		get("/settings/automations/{rule}/test", roleAdmin, h.ruleTest)
		post("/settings/automations/{rule}/{action}", roleAdmin, h.ruleAction)
		get("/settings/webhooks", roleAdmin, h.settingsWebhooks)
		post("/settings/webhooks", roleAdmin, h.createWebhook)
		get("/settings/webhooks/{sub}/log", roleAdmin, h.webhookLog)
		post("/settings/webhooks/{sub}/{action}", roleAdmin, h.webhookAction)
		post("/settings/webhooks/deliveries/{delivery}/redeliver", roleAdmin, h.redeliver)

		// ---- UI: the signed-in user's own: tokens, profile, password, two-factor, sessions, availability ----
		get("/settings/tokens", roleSignedIn, h.settingsTokens)
		post("/settings/tokens", roleSignedIn, h.createToken)
		post("/settings/tokens/{token}/revoke", roleSignedIn, h.revokeToken)
		get("/settings/profile", roleSignedIn, h.profile)
		post("/settings/profile", roleSignedIn, h.saveProfile)
		post("/settings/profile/email", roleSignedIn, h.changeEmail)
		post("/settings/profile/notifications", roleSignedIn, h.saveNotifications)
		post("/settings/profile/password", roleSignedIn, h.changePassword)
		get("/settings/profile/2fa", roleSignedIn, h.twoFactorSetup)
		post("/settings/profile/2fa", roleSignedIn, h.twoFactorConfirm)
		post("/settings/profile/2fa/off", roleSignedIn, h.twoFactorOff)
		post("/settings/profile/sessions/{session}/end", roleSignedIn, h.endSession)
		post("/settings/profile/sessions/end-others", roleSignedIn, h.endOtherSessions)
		post("/availability", roleSignedIn, h.setAvailability)

		// ---- Web Push: the key, this browser's subscription, the profile's devices ----
		if h.cfg.PushKey != "" {
			mux.HandleFunc("GET /push/key", h.pushKey)
			mux.Handle("POST /push/subscriptions", forms.Handler(http.HandlerFunc(h.pushSubscribe)))
			mux.Handle("DELETE /push/subscriptions", forms.Handler(http.HandlerFunc(h.pushUnsubscribe)))
			post("/settings/profile/devices/{device}/remove", roleSignedIn, h.removeDevice)
		}

		// ---- UI: the installation's superuser pages ----
		get("/admin", roleSignedIn, su(h.adminOverview))
		get("/admin/workspaces", roleSignedIn, su(h.adminWorkspaces))
		post("/admin/workspaces", roleSignedIn, su(h.adminCreateWorkspace))
		post("/admin/workspaces/{ws}/rename", roleSignedIn, su(h.adminRenameWorkspace))
		post("/admin/workspaces/{ws}/archive", roleSignedIn, su(h.adminArchiveWorkspace))
		get("/admin/users", roleSignedIn, su(h.adminUsers))
		post("/admin/users/{user}/{action}", roleSignedIn, su(h.adminUserAction))
		post("/admin/users/require-2fa", roleSignedIn, su(h.adminRequire2FA))
		get("/admin/oauth-clients", roleSignedIn, su(h.adminOAuthClients))
		post("/admin/oauth-clients", roleSignedIn, su(h.adminCreateClient))
		post("/admin/oauth-clients/{client}/rotate", roleSignedIn, su(h.adminRotateClient))
		post("/admin/oauth-clients/{client}/delete", roleSignedIn, su(h.adminDeleteClient))
		post("/admin/oauth-clients/grants/{grant}/revoke", roleSignedIn, su(h.adminRevokeGrant))
		h.backupPage = h.page(roleSignedIn, su(h.adminBackup)) // served by GET /admin/backup above
		get("/admin/backup/download", roleSignedIn, su(h.adminBackupDownload))
		if h.cfg.Accounts != nil { // carrier accounts connected in the browser
			get("/admin/carriers", roleSignedIn, su(h.adminCarriers))
			post("/admin/carriers/twilio", roleSignedIn, su(h.adminConnectTwilio))
			post("/admin/carriers/telnyx", roleSignedIn, su(h.adminConnectTelnyx))
			post("/admin/carriers/{carrier}/disconnect", roleSignedIn, su(h.adminDisconnectCarrier))
		}
	}

	// Routes the tests add (Config.Mount).
	for _, m := range h.cfg.Mount {
		m(mux)
	}

	// ---- middleware, outermost first: request id, access log and panic recovery; the
	// assets' version for pages (the cluster's 503 page too); in a cluster, what the leader
	// must answer goes to it ----
	root := h.withRequestID(h.withAssetVersion(h.front(h.statusPages(mux))))
	if h.cfg.Cluster != nil {
		h.cfg.Cluster.SetApp(h.servePeer(root))
	}
	return root
}

// superuserOnly wraps a page so that only a superuser of the installation opens it; it
// marks the page as part of the "admin" section of the navigation.
func (h *Handler) superuserOnly(fn uiPage) uiPage {
	return func(w http.ResponseWriter, r *http.Request, u *ui) {
		if !u.user.Superuser {
			h.forbidden(w, r, u, "Only an administrator of the installation can open this page.")
			return
		}
		u.section = "admin"
		fn(w, r, u)
	}
}
