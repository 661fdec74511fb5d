package store

import (
	bolt "go.etcd.io/bbolt"

	"switchboard/store/internal/index"
)

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
	// The contact buckets hold a bucket per workspace (their layout: index.Layout).
	bContacts          = []byte("contact_records")
	bContactPhone      = []byte("idx_contact_by_phone")
	bContactEmail      = []byte("idx_contact_by_email")
	bContactTerms      = []byte("idx_contact_postings")
	bContactOrder      = []byte("idx_contact_names")
	bContactNums       = []byte("idx_contact_nums")
	bConversations     = []byte("conversations")
	bConvKey           = []byte("idx_conversation_key")
	bConvActivity      = []byte("idx_conversation_activity") // ws|activity(8)|conversation -> empty: the inbox order
	bMessages          = []byte("messages")
	bConvMessages      = []byte("idx_conversation_messages")
	bOutbox            = []byte("outbox")               // number id|priority|message id -> ws: ready to send
	bOutboxSending     = []byte("outbox_sending")       // message id -> number id|priority|ws: handed to a carrier
	bOutboxDelayed     = []byte("outbox_delayed")       // due(8)|message id -> number id|priority|ws: retries
	bMsgProvider       = []byte("idx_message_provider") // provider|0|provider id -> ws|message id
	bMsgAwaiting       = []byte("idx_message_awaiting") // provider|0|sent at(8)|ws|message id -> empty: sends awaiting their receipt
	bBlocked           = []byte("blocked_numbers")      // ws|phone -> Block
	bGroups            = []byte("groups")               // ws|id -> Group
	bBroadcastTargets  = []byte("broadcast_targets")    // ws|id -> BroadcastTargets
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
	bOptOutLifts       = []byte("opt_out_lifts") // ws|0|phone|0|id -> OptOutLift
	bConsents          = []byte("consents")      // ws|0|phone|0|id -> Consent
	bNumberFlags       = []byte("number_flags")  // ws|phone -> NumberFlag
	bTokens            = []byte("api_tokens")    // sha256(token) -> Token
	bTokenIDs          = []byte("idx_api_token_id")
	bSubs              = []byte("webhook_subscriptions")
	bSubEvent          = []byte("idx_webhook_subscription_event")
	bEvents            = []byte("webhook_events")     // event id -> Event
	bDeliveries        = []byte("webhook_deliveries") // delivery id -> Delivery
	bDeliveryQueue     = []byte("webhook_queue")      // due(8)|delivery id -> empty
	bAttempts          = []byte("webhook_attempts")   // delivery id|attempt id -> Attempt
	bSubDeliveries     = []byte("idx_webhook_subscription_deliveries")
	bSubOwner          = []byte("idx_webhook_subscription_owner")   // see ownerKey
	bSubPending        = []byte("idx_webhook_subscription_pending") // sub|delivery -> empty, pending only
	bEventPending      = []byte("idx_webhook_event_pending")        // event|delivery -> empty, pending only
	bSnippets          = []byte("snippets")                         // ws|shortcut -> Snippet
	// The live inbox's push: its event log, unread marks, mentions and notification preferences.
	bLiveEvents  = []byte("live_events")         // ws|seq(8) -> at|kind|target|JSON
	bLiveSeq     = []byte("live_event_seq")      // ws -> last seq(8)
	bUnread      = []byte("unread")              // ws|user|conversation -> empty
	bUnreadCount = []byte("unread_count")        // ws|user -> count(8)
	bMentions    = []byte("idx_mentions")        // ws|user|at(8)|conversation -> empty
	bMentionLast = []byte("mention_last")        // ws|user|conversation -> at(8)
	bNotifyPrefs = []byte("notification_prefs")  // user -> NotificationPrefs
	bImportJobs  = []byte("contact_import_jobs") // ws|id -> ImportJob
	// The live inbox: message words for its search, conversation logs, snoozes.
	bMsgWords    = []byte("idx_message_words")       // per-workspace bucket: word postings
	bMsgSlots    = []byte("idx_message_slots")       // per-workspace bucket: num → conversation
	bConvEntries = []byte("conversation_entries")    // ws|id -> ConversationEntry
	bConvSnooze  = []byte("idx_conversation_snooze") // until(8)|ws|conversation -> empty
	// Accounts: sign-in sessions, two-factor, password resets, e-mail changes and the outbox.
	bSessions    = []byte("sessions")         // sha256(token) -> Session
	bSessionUser = []byte("idx_session_user") // user|session id -> sha256(token)
	bTwoFactor   = []byte("user_two_factor")  // user -> two-factor record
	bResets      = []byte("password_resets")  // sha256(token) -> PasswordReset
	bEmailChange = []byte("email_changes")    // sha256(token) -> emailChange
	bMail        = []byte("mail")             // id -> Mail

	bMailQueue  = []byte("mail_queue")  // due(8)|id -> empty
	bMailNotify = []byte("mail_notify") // user -> mailNotifyState
	// Attachments: a file's record, its bytes in 1 MiB values, its owner index and the queue
	// of inbound media to fetch.
	bMedia       = []byte("media")             // token -> MediaRecord
	bMediaChunks = []byte("media_chunks")      // token|seq(4) -> up to mediaChunk bytes of the file
	bMediaOwner  = []byte("idx_media_owner")   // ws(16)|owner(16)|token -> empty: deleted with the owner
	bMediaFetch  = []byte("media_fetch_queue") // due(8)|job id(16) -> MediaFetch
	// bNumberDaySends counts the messages each capped number sends per workspace day.
	bNumberDaySends = []byte("number_day_sends") // number id(16) | yyyymmdd -> count(8)
	// Carrier accounts connected in the browser, their secrets sealed.
	bCarrierAccounts = []byte("carrier_accounts") // carrier -> CarrierAccount
	// The report rollups (kept by the report methods of wtx).
	bReportDays    = []byte("report_days")          // ws|day(4)|number|member -> day row
	bReportSamples = []byte("report_samples")       // ws|day|number|member|kind -> sorted durations
	bReportBcasts  = []byte("report_broadcasts")    // ws|broadcast -> broadcast row
	bReportConvs   = []byte("report_conversations") // ws|conversation -> convFacts
	// Web Push: the devices' subscriptions and the push outbox.
	bPushSubs        = []byte("push_subscriptions")             // id -> PushSubscription
	bPushSubUser     = []byte("idx_push_subscription_user")     // user|id -> empty
	bPushSubSession  = []byte("idx_push_subscription_session")  // session id|id -> empty
	bPushSubEndpoint = []byte("idx_push_subscription_endpoint") // sha256(endpoint) -> id
	bPushJobs        = []byte("push_jobs")                      // id -> PushJob
	bPushQueue       = []byte("push_queue")                     // due(8)|id -> empty
	bPushSubJobs     = []byte("idx_push_subscription_jobs")     // subscription|job -> due(8)
	// Routing and automations: the routing record, availability, the open assigned index,
	// the due-time queue, the overdue index and the automatic messages sent.
	bRouting      = []byte("routing")                  // ws -> version(16)|Routing JSON
	bAvailability = []byte("user_availability")        // user -> "away" (available when absent)
	bAssignedOpen = []byte("idx_assigned_open")        // ws|user|conversation -> empty: open and assigned
	bAssignLast   = []byte("assign_last")              // ws|user -> when last assigned(8)
	bAutoDue      = []byte("automation_due")           // due(8)|ws|conversation|kind|ref -> wait start(8)
	bOverdue      = []byte("idx_conversation_overdue") // ws|due(8)|conversation -> empty
	bAutoSent     = []byte("auto_sent")                // ws|phone|0|at(8)|message -> empty: automatic messages
)

// The recent parts of the contact indexes whose keys land all over their range, and where the
// next move of each into its main part starts (index.SplitIndex).
var (
	bContactPhoneRecent = []byte("idx_contact_by_phone_recent")
	bContactEmailRecent = []byte("idx_contact_by_email_recent")
	bContactOrderRecent = []byte("idx_contact_names_recent")
	bContactTermsRecent = []byte("idx_contact_postings_recent")
	bContactSweep       = []byte("idx_contact_recent_sweep") // ws|main bucket name -> the next key to move
)

// OAuthBuckets are the buckets of the OAuth authorization server's records, which package oauth
// reads and writes (through Write); the store declares and creates them with its own. Keys of
// ULID ids are their 16 bytes.
var OAuthBuckets = struct {
	Clients     []byte // client id -> Client
	Codes       []byte // sha256(code) -> code record
	UsedCodes   []byte // sha256(code) -> used record (replay detection)
	Refresh     []byte // sha256(refresh) -> refresh record
	UsedRefresh []byte // sha256(refresh) -> used record (replay detection)
	Grants      []byte // grant id -> Grant
	UserGrants  []byte // user id | grant id -> empty
	GrantTokens []byte // grant id | kind | token id -> sha256 (refresh) or empty (access)
}{
	Clients:     []byte("oauth_clients"),
	Codes:       []byte("oauth_codes"),
	UsedCodes:   []byte("oauth_used_codes"),
	Refresh:     []byte("oauth_refresh"),
	UsedRefresh: []byte("oauth_used_refresh"),
	Grants:      []byte("oauth_grants"),
	UserGrants:  []byte("idx_oauth_user_grants"),
	GrantTokens: []byte("idx_oauth_grant_tokens"),
}

// setSources are the buckets the contacts list's kept sets are built from (index.Members): a
// write set from another node that changes one of them makes the kept sets be rebuilt.
var setSources = [][]byte{bGroups, bGroupMembers, bContactGroups, bOptOutPhone, bConvKey,
	bContacts, bContactPhone, bContactPhoneRecent, bContactNums}

// indexLayout names the buckets of the search and index engine.
var indexLayout = index.Layout{
	Nums:  bContactNums,
	Phone: index.Split{Main: bContactPhone, Recent: bContactPhoneRecent},
	Email: index.Split{Main: bContactEmail, Recent: bContactEmailRecent},
	Order: index.Split{Main: bContactOrder, Recent: bContactOrderRecent},
	Terms: index.Split{Main: bContactTerms, Recent: bContactTermsRecent},
	Sweep: bContactSweep,
	Words: bMsgWords,
	Slots: bMsgSlots,
}

var allBuckets = [][]byte{
	bMeta, bTenants, bWorkspaces, bUsers, bUserEmail, bMemberships, bUserWS, bInvitations,
	bNumbers, bNumberPhone, bNumberGlobal, bProperties, bPropertyName, bContacts, bContactPhone, bContactEmail,
	bContactTerms, bContactOrder, bContactNums,
	bContactPhoneRecent, bContactEmailRecent, bContactOrderRecent, bContactTermsRecent, bContactSweep, bConversations, bConvKey, bMessages, bConvMessages,
	bOutbox, bOutboxSending, bOutboxDelayed, bMsgProvider, bMsgAwaiting, bBlocked, bGroups, bGroupName, bGroupMembers, bContactGroups, bBroadcastTargets, bBroadcastSchedule, bBroadcastPending, bBroadcastHeld, bComments, bBroadcasts, bOptOuts, bOptOutPhone, bOptOutLifts, bConsents, bNumberFlags, bTokens, bTokenIDs, bSubs, bSubEvent,
	bEvents, bDeliveries, bDeliveryQueue, bAttempts, bSubDeliveries,
	bSubOwner, bSubPending, bEventPending, bConvActivity, bSnippets,
	bLiveEvents, bLiveSeq, bUnread, bUnreadCount, bMentions, bMentionLast, bNotifyPrefs,
	bImportJobs,
	bMedia, bMediaChunks, bMediaOwner, bMediaFetch,
	bMsgWords, bMsgSlots, bConvEntries, bConvSnooze,
	bSessions, bSessionUser, bTwoFactor, bResets, bEmailChange, bMail, bMailQueue, bMailNotify,
	bNumberDaySends,
	bPushSubs, bPushSubUser, bPushSubSession, bPushSubEndpoint, bPushJobs, bPushQueue, bPushSubJobs,
	bCarrierAccounts,
	bReportDays, bReportSamples, bReportBcasts, bReportConvs,
	bRouting, bAvailability, bAssignedOpen, bAssignLast, bAutoDue, bOverdue, bAutoSent,
	OAuthBuckets.Clients, OAuthBuckets.Codes, OAuthBuckets.UsedCodes, OAuthBuckets.Refresh,
	OAuthBuckets.UsedRefresh, OAuthBuckets.Grants, OAuthBuckets.UserGrants, OAuthBuckets.GrantTokens,
}

// Keys of the meta bucket, declared beside the buckets.
var (
	metaSchemaVersion = []byte("schema_version") // the file's schema version (migrations)
	metaTenantID      = []byte("tenant_id")      // the installation's one tenant
	// pendingCountKey holds how many deliveries are pending: the webhook queue's depth.
	pendingCountKey = []byte("webhook_pending_count")
	metaArchived    = []byte("archived_ws\x00") // + workspace id: the workspace is archived
	// metaDeletedContacts + workspace id holds how many of the workspace's contacts were deleted
	// (uint64): the workspace's contact count is its nums sequence, which every new contact
	// takes one of and which never goes back, minus this.
	metaDeletedContacts = []byte("contacts_deleted\x00")
	// metaRequire2FA is set while a superuser requires two-factor for everyone.
	metaRequire2FA = []byte("require_two_factor")
	// metaAppliedIndex is the index of the last log entry the file holds, written with the
	// entry's changes, when the store is a cluster's node.
	metaAppliedIndex = []byte("raft_applied_index")
	// metaReportBuild + workspace id: the workspace's report rollups are being built.
	metaReportBuild = []byte("report_build\x00")
	// metaPushDepth holds how many pushes wait in the push outbox.
	metaPushDepth = []byte("push_queue_depth")
	// metaKeyCheck is a value sealed with the secret key the file's secrets are sealed with:
	// opening it tells whether a start was given that key (SecretKeyMatches).
	metaKeyCheck = []byte("secret_key_check")
	// metaRecovery holds each carrier's last check of its message listings (RecoveryCheck).
	metaRecovery = []byte("inbound_recovery")
)

// Buckets of earlier versions, read only to migrate them or to delete what they held.
var (
	// Schema 1 kept contacts as JSON under workspace|id in "contacts", indexed by
	// workspace-prefixed keys, with a second copy of each contact's folded text (its search
	// document) in both "contact_search_docs" and the order index.
	v1Contacts     = []byte("contacts")
	v1ContactIndex = [][]byte{
		[]byte("idx_contact_phone"), []byte("idx_contact_email"), []byte("idx_contact_terms"),
		[]byte("idx_contact_order"), []byte("contact_search_docs"),
	}
	// Earlier versions kept the session cookie keys in the database (the OAuth provider's meta
	// bucket); they are deleted on start, since anyone holding a backup could sign cookies
	// with them.
	bLegacySessionMeta  = []byte("oauth_meta")
	keyLegacySessionKey = []byte("session_keys")
)

// IsStoreFile reports whether tx, a read transaction of some bbolt file, is of a store's file:
// it has the meta bucket every one is created with (a restore checks a backup with it).
func IsStoreFile(tx *bolt.Tx) bool { return tx.Bucket(bMeta) != nil }
