package store

// Bucket names, declared in one place. Index buckets hold keys of the form
// workspace(16) | 0x00 | term | 0x00 | id(16) with empty values unless noted.
var (
	bMeta         = []byte("meta")
	bTenants      = []byte("tenants")
	bWorkspaces   = []byte("workspaces")
	bUsers        = []byte("users")
	bUserEmail    = []byte("idx_user_email") // lower(email) -> user id
	bMemberships  = []byte("memberships")    // ws|user -> Membership
	bUserWS       = []byte("idx_user_workspaces")
	bInvitations  = []byte("invitations")
	bNumbers      = []byte("phone_numbers")
	bNumberPhone  = []byte("idx_phone_number_phone")
	bNumberGlobal = []byte("idx_phone_number_global") // phone -> ws|number id, installation-wide
	bProperties   = []byte("contact_properties")
	bPropertyName = []byte("idx_contact_property_name")
	// The contact buckets hold a bucket per workspace (layout in search_index.go).
	bContacts          = []byte("contact_records")
	bContactPhone      = []byte("idx_contact_by_phone")
	bContactEmail      = []byte("idx_contact_by_email")
	bContactTerms      = []byte("idx_contact_postings")
	bContactOrder      = []byte("idx_contact_names")
	bContactNums       = []byte("idx_contact_nums")
	bConversations     = []byte("conversations")
	bConvKey           = []byte("idx_conversation_key")
	bConvActivity      = []byte("idx_conversation_activity") // ws|activity(8)|conversation -> empty (inbox.go)
	bMessages          = []byte("messages")
	bConvMessages      = []byte("idx_conversation_messages")
	bOutbox            = []byte("outbox")               // number id|priority|message id -> ws: ready to send (outbox.go)
	bOutboxSending     = []byte("outbox_sending")       // message id -> number id|priority|ws: handed to a carrier
	bOutboxDelayed     = []byte("outbox_delayed")       // due(8)|message id -> number id|priority|ws: retries
	bMsgProvider       = []byte("idx_message_provider") // provider|0|provider id -> ws|message id
	bBlocked           = []byte("blocked_numbers")      // ws|phone -> Block
	bGroups            = []byte("groups")               // ws|id -> Group (group.go)
	bBroadcastTargets  = []byte("broadcast_targets")    // ws|id -> BroadcastTargets (broadcast_targets.go)
	bBroadcastSchedule = []byte("broadcast_schedule")   // due|ws|id -> empty
	bBroadcastPending  = []byte("broadcast_pending")    // ws|id|seq -> recipients still to queue
	bBroadcastHeld     = []byte("broadcast_held")       // ws|id|message id -> number id|priority|ws|id: copies of a paused broadcast
	bGroupName         = []byte("idx_group_name")
	bGroupMembers      = []byte("group_members")      // ws|group|contact -> empty
	bContactGroups     = []byte("idx_contact_groups") // ws|contact|group -> empty
	bComments          = []byte("comments")
	bBroadcasts        = []byte("broadcasts")
	bOptOuts           = []byte("opt_outs")
	bOptOutPhone       = []byte("idx_opt_out_phone")
	bOptOutLifts       = []byte("opt_out_lifts") // ws|0|phone|0|id -> OptOutLift (optout_lift.go)
	bConsents          = []byte("consents")      // ws|0|phone|0|id -> Consent (consent.go)
	bNumberFlags       = []byte("number_flags")  // ws|phone -> NumberFlag (carrier_codes.go)
	bTokens            = []byte("api_tokens")    // sha256(token) -> Token
	bTokenIDs          = []byte("idx_api_token_id")
	bSubs              = []byte("webhook_subscriptions")
	bSubEvent          = []byte("idx_webhook_subscription_event")
	bEvents            = []byte("webhook_events")     // event id -> Event
	bDeliveries        = []byte("webhook_deliveries") // delivery id -> Delivery
	bDeliveryQueue     = []byte("webhook_queue")      // due(8)|delivery id -> empty
	bAttempts          = []byte("webhook_attempts")   // delivery id|attempt id -> Attempt
	bSubDeliveries     = []byte("idx_webhook_subscription_deliveries")
	bSubOwner          = []byte("idx_webhook_subscription_owner")   // see ownerKey (subscription.go)
	bSubPending        = []byte("idx_webhook_subscription_pending") // sub|delivery -> empty, pending only
	bEventPending      = []byte("idx_webhook_event_pending")        // event|delivery -> empty, pending only
	bSnippets          = []byte("snippets")                         // ws|shortcut -> Snippet (snippet.go)
	// The live inbox's push (live_event.go, unread.go, notify_prefs.go).
	bLiveEvents  = []byte("live_events")         // ws|seq(8) -> at|kind|target|JSON
	bLiveSeq     = []byte("live_event_seq")      // ws -> last seq(8)
	bUnread      = []byte("unread")              // ws|user|conversation -> empty
	bUnreadCount = []byte("unread_count")        // ws|user -> count(8)
	bMentions    = []byte("idx_mentions")        // ws|user|at(8)|conversation -> empty
	bMentionLast = []byte("mention_last")        // ws|user|conversation -> at(8)
	bNotifyPrefs = []byte("notification_prefs")  // user -> NotificationPrefs
	bImportJobs  = []byte("contact_import_jobs") // ws|id -> ImportJob (import_job.go)
	// The live inbox (message_words.go, conversation_log.go, snooze.go).
	bMsgWords    = []byte("idx_message_words")       // per-workspace bucket: word postings
	bMsgSlots    = []byte("idx_message_slots")       // per-workspace bucket: num → conversation
	bConvEntries = []byte("conversation_entries")    // ws|id -> ConversationEntry
	bConvSnooze  = []byte("idx_conversation_snooze") // until(8)|ws|conversation -> empty
	// Accounts: sign-in sessions, two-factor, password resets and the e-mail outbox.
	bSessions    = []byte("sessions")         // sha256(token) -> Session (session.go)
	bSessionUser = []byte("idx_session_user") // user|session id -> sha256(token)
	bTwoFactor   = []byte("user_two_factor")  // user -> two-factor record (totp.go)
	bResets      = []byte("password_resets")  // sha256(token) -> PasswordReset (reset.go)
	bMail        = []byte("mail")             // id -> Mail (mail.go)
	bMailQueue   = []byte("mail_queue")       // due(8)|id -> empty
	bMailNotify  = []byte("mail_notify")      // user -> mailNotifyState (notify_mail.go)
	// Routing and automations (routing.go, assign.go, due.go, first_response.go, autoreply.go).
	bRouting      = []byte("routing")                  // ws -> version(16)|Routing JSON
	bAvailability = []byte("user_availability")        // user -> "away" (available when absent)
	bAssignedOpen = []byte("idx_assigned_open")        // ws|user|conversation -> empty: open and assigned
	bAssignLast   = []byte("assign_last")              // ws|user -> when last assigned(8)
	bAutoDue      = []byte("automation_due")           // due(8)|ws|conversation|kind|ref -> wait start(8)
	bOverdue      = []byte("idx_conversation_overdue") // ws|due(8)|conversation -> empty
	bAutoSent     = []byte("auto_sent")                // ws|phone|0|at(8)|message -> empty: automatic messages
)

// The recent parts of the contact indexes whose keys land all over their range, and where the
// next move of each into its main part starts (contact_index_split.go).
var (
	bContactPhoneRecent = []byte("idx_contact_by_phone_recent")
	bContactEmailRecent = []byte("idx_contact_by_email_recent")
	bContactOrderRecent = []byte("idx_contact_names_recent")
	bContactTermsRecent = []byte("idx_contact_postings_recent")
	bContactSweep       = []byte("idx_contact_recent_sweep") // ws|main bucket name -> the next key to move
)

var allBuckets = [][]byte{
	bMeta, bTenants, bWorkspaces, bUsers, bUserEmail, bMemberships, bUserWS, bInvitations,
	bNumbers, bNumberPhone, bNumberGlobal, bProperties, bPropertyName, bContacts, bContactPhone, bContactEmail,
	bContactTerms, bContactOrder, bContactNums,
	bContactPhoneRecent, bContactEmailRecent, bContactOrderRecent, bContactTermsRecent, bContactSweep, bConversations, bConvKey, bMessages, bConvMessages,
	bOutbox, bOutboxSending, bOutboxDelayed, bMsgProvider, bBlocked, bGroups, bGroupName, bGroupMembers, bContactGroups, bBroadcastTargets, bBroadcastSchedule, bBroadcastPending, bBroadcastHeld, bComments, bBroadcasts, bOptOuts, bOptOutPhone, bOptOutLifts, bConsents, bNumberFlags, bTokens, bTokenIDs, bSubs, bSubEvent,
	bEvents, bDeliveries, bDeliveryQueue, bAttempts, bSubDeliveries,
	bSubOwner, bSubPending, bEventPending, bConvActivity, bSnippets,
	bLiveEvents, bLiveSeq, bUnread, bUnreadCount, bMentions, bMentionLast, bNotifyPrefs,
	bImportJobs,
	bMedia, bMediaChunks, bMediaOwner, bMediaFetch, // media.go
	bMsgWords, bMsgSlots, bConvEntries, bConvSnooze,
	bSessions, bSessionUser, bTwoFactor, bResets, bMail, bMailQueue, bMailNotify,
	bNumberDaySends, // daily_cap.go
	bRouting, bAvailability, bAssignedOpen, bAssignLast, bAutoDue, bOverdue, bAutoSent,
}

// Keys of the meta bucket, declared beside the buckets.
var (
	metaSchemaVersion = []byte("schema_version") // the file's schema version (migrate.go)
	metaTenantID      = []byte("tenant_id")      // the installation's one tenant
	// pendingCountKey holds how many deliveries are pending: the webhook queue's depth.
	pendingCountKey = []byte("webhook_pending_count")
	metaArchived    = []byte("archived_ws\x00") // + workspace id: the workspace is archived
)
