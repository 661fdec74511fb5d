package store

import "time"

// Enum values (DESIGN §3a).
const (
	ConversationOpen    = "open"
	ConversationSnoozed = "snoozed"
	ConversationClosed  = "closed"

	BroadcastDraft     = "draft"
	BroadcastScheduled = "scheduled"
	BroadcastSending   = "sending"
	BroadcastSent      = "sent"
	BroadcastFailed    = "failed"
	BroadcastCancelled = "cancelled"

	InvitationPending  = "pending"
	InvitationAccepted = "accepted"
	InvitationExpired  = "expired"
	InvitationRevoked  = "revoked"

	CommSMS   = "sms"
	CommEmail = "email"
	CommChat  = "chat"

	SourceAPI     = "api"
	SourceAdmin   = "admin"
	SourceInbound = "inbound"
	SourceImport  = "import"

	PriorityHigh   = "high"
	PriorityNormal = "normal"
	PriorityLow    = "low"

	ProviderSandbox = "sandbox"
	ProviderTwilio  = "twilio"

	MessageQueued    = "queued"
	MessageSending   = "sending"
	MessageSent      = "sent"
	MessageDelivered = "delivered"
	MessageFailed    = "failed"
	MessageReceived  = "received"
	MessageCancelled = "cancelled"
	MessageScheduled = "scheduled"

	OptOutAPI     = "api"
	OptOutKeyword = "keyword"
	OptOutCarrier = "carrier"
	OptOutAdmin   = "admin"

	PropertyText    = "text"
	PropertyNumber  = "number"
	PropertyBoolean = "boolean"
	PropertyDate    = "date"
)

// PropertyTypes lists the custom property types in the order forms show them.
var PropertyTypes = []string{PropertyText, PropertyNumber, PropertyBoolean, PropertyDate}

// Tenant owns workspaces. An installation has one.
type Tenant struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// Workspace owns numbers, contacts, conversations and everything under them.
type Workspace struct {
	ID        string    `json:"id"`
	TenantID  string    `json:"tenantId"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// RetentionDays is how long messages are kept; 0 keeps them until deleted (DESIGN §8).
	RetentionDays int `json:"retentionDays,omitempty"`
	// Keyword reply texts and the voice greeting: nil means the default (WorkspaceReply); an
	// empty string sends no reply (for carriers that answer keywords themselves).
	StopReply     *string `json:"stopReply,omitempty"`
	StartReply    *string `json:"startReply,omitempty"`
	HelpReply     *string `json:"helpReply,omitempty"`
	VoiceGreeting *string `json:"voiceGreeting,omitempty"`
	// TimeZone (IANA) is the zone of contacts whose own cannot be known; "" is UTC.
	TimeZone string `json:"timeZone,omitempty"`
	// QuietHours ("21:00-08:00", "" when off): broadcast copies due inside them, in the
	// contact's time zone, wait until they end.
	QuietHours string `json:"quietHours,omitempty"`
}

// Location is the workspace's time zone (UTC when unset or unknown).
func (w *Workspace) Location() *time.Location {
	if w.TimeZone != "" {
		if loc, ok := loadLocation(w.TimeZone); ok {
			return loc
		}
	}
	return time.UTC
}

// User is a person who signs in to the admin UI or acts through a token.
type User struct {
	ID           string    `json:"id"`
	Email        string    `json:"email"`
	Name         string    `json:"name"`
	PasswordHash string    `json:"passwordHash,omitempty"`
	Superuser    bool      `json:"superuser"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`

	// Disabled users cannot sign in; their sessions and tokens stop working (account.go).
	Disabled bool `json:"disabled,omitempty"`
	// TwoFactor is set once the user has enrolled an authenticator app (totp.go).
	TwoFactor bool `json:"twoFactor,omitempty"`
}

// Membership makes a user a member of a workspace.
type Membership struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	UserID      string    `json:"userId"`
	Role        string    `json:"role"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Invitation asks someone by email to join a workspace; it expires after seven days.
type Invitation struct {
	ID               string     `json:"id"`
	WorkspaceID      string     `json:"workspaceId"`
	TenantID         string     `json:"tenantId"`
	Email            string     `json:"email"`
	Status           string     `json:"status"`
	UserMembershipID string     `json:"userMembershipId"`
	ExpiredAt        time.Time  `json:"expiredAt"`
	CreatedAt        time.Time  `json:"createdAt"`
	UpdatedAt        time.Time  `json:"updatedAt"`
	DeletedAt        *time.Time `json:"deletedAt,omitempty"`
}

// PhoneNumber is a workspace's outbound channel. A phone belongs to one workspace in the whole
// installation.
type PhoneNumber struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Phone       string    `json:"phone"`
	Name        string    `json:"name"`
	Active      bool      `json:"active"`
	CreatedAt   time.Time `json:"createdAt"`
	// Carrier is the adapter that sends and receives for this number: sandbox or twilio.
	Carrier string `json:"carrier,omitempty"`
	// Rate is the send rate in messages per second (0 = unlimited); nil takes the server's
	// -send-rate (sandbox numbers: unlimited).
	Rate *float64 `json:"rate,omitempty"`
}

// CarrierName is the number's carrier; numbers from before carriers existed are sandbox ones.
func (n *PhoneNumber) CarrierName() string {
	if n.Carrier == "" {
		return ProviderSandbox
	}
	return n.Carrier
}

// SendRate is the number's rate in messages per second, 0 meaning unlimited: its own, else
// defaultRate for carriers that bill and throttle, else unlimited for the sandbox.
func (n *PhoneNumber) SendRate(defaultRate float64) float64 {
	switch {
	case n.Rate != nil:
		return *n.Rate
	case n.CarrierName() == ProviderSandbox:
		return 0
	}
	return defaultRate
}

// Property is a workspace's custom contact property.
type Property struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Address is a postal address of a contact.
type Address struct {
	ID               string `json:"id"`
	Object           string `json:"object"`
	Street           string `json:"street"`
	City             string `json:"city"`
	State            string `json:"state"`
	Country          string `json:"country"`
	CountryCode      string `json:"countryCode"`
	PostalCode       string `json:"postalCode"`
	PostalCodeSuffix string `json:"postalCodeSuffix"`
	DefaultBilling   bool   `json:"defaultBilling"`
	DefaultShipping  bool   `json:"defaultShipping"`
}

// InboundChannel is an address (a phone number) a contact writes from.
type InboundChannel struct {
	ID                string     `json:"id"`
	Address           string     `json:"address"`
	CommunicationType string     `json:"communicationType"`
	Carrier           string     `json:"carrier"`
	ContactID         string     `json:"contactId"`
	IsDefault         bool       `json:"isDefault"`
	VerifiedAt        *time.Time `json:"verifiedAt,omitempty"`
	BlockedAt         *time.Time `json:"blockedAt,omitempty"`
	BlockedByID       string     `json:"blockedById,omitempty"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt"`
}

// Contact is a person a workspace texts with.
type Contact struct {
	ID                      string           `json:"id"`
	WorkspaceID             string           `json:"workspaceId"`
	TenantID                string           `json:"tenantId"`
	FirstName               string           `json:"firstName"`
	LastName                string           `json:"lastName"`
	Company                 string           `json:"company"`
	Email                   string           `json:"email"`
	AvatarURL               string           `json:"avatarUrl"`
	Flags                   []string         `json:"flags"`
	Properties              map[string]any   `json:"properties"`
	Source                  string           `json:"source"`
	TimeZone                string           `json:"timeZone,omitempty"` // IANA name; "" derives it from the phone
	LastInboundMessageTime  *time.Time       `json:"lastInboundMessageTime,omitempty"`
	LastOutboundMessageTime *time.Time       `json:"lastOutboundMessageTime,omitempty"`
	Addresses               []Address        `json:"addresses"`
	InboundChannels         []InboundChannel `json:"inboundChannels"`
	CreatedAt               time.Time        `json:"createdAt"`
	UpdatedAt               time.Time        `json:"updatedAt"`
}

// Phone is the address of the contact's default inbound channel.
func (c *Contact) Phone() string {
	for _, ch := range c.InboundChannels {
		if ch.IsDefault {
			return ch.Address
		}
	}
	if len(c.InboundChannels) > 0 {
		return c.InboundChannels[0].Address
	}
	return ""
}

// Conversation is a thread between one outbound number and one or more contact addresses.
type Conversation struct {
	ID                      string     `json:"id"`
	WorkspaceID             string     `json:"workspaceId"`
	TenantID                string     `json:"tenantId"`
	Name                    string     `json:"name"`
	CommunicationType       string     `json:"communicationType"`
	Status                  string     `json:"status"`
	AssignedUserIDs         []string   `json:"assignedUserIds"`
	Labels                  []string   `json:"labels"`
	From                    string     `json:"from"`
	InboundChannelAddresses string     `json:"inboundChannelAddresses"`
	Addresses               []string   `json:"addresses"`
	OutboundChannelID       string     `json:"outboundChannelId"`
	LastMessageTime         *time.Time `json:"lastMessageTime"`
	CreatedAt               time.Time  `json:"createdAt"`
	UpdatedAt               time.Time  `json:"updatedAt"`
}

// IsGroup reports whether the conversation has more than one contact address.
func (c *Conversation) IsGroup() bool { return len(c.Addresses) > 1 }

// Message is one SMS/MMS, inbound or outbound. Stored as JSON without its empty fields (results
// and payloads are built from it with every field present).
type Message struct {
	ID                string     `json:"id"`
	WorkspaceID       string     `json:"workspaceId"`
	ConversationID    string     `json:"conversationId"`
	BroadcastID       string     `json:"broadcastId,omitempty"`
	CommunicationType string     `json:"communicationType,omitempty"`
	From              string     `json:"from"`
	To                string     `json:"to,omitempty"`
	Group             []string   `json:"group,omitempty"`
	Text              string     `json:"text,omitempty"`
	Media             []string   `json:"media,omitempty"`
	MultipartID       string     `json:"multipartId,omitempty"`
	MultipartNum      int        `json:"multipartNum,omitempty"`
	Segments          int        `json:"segments,omitempty"`
	Outbound          bool       `json:"outbound,omitempty"`
	Billable          bool       `json:"billable,omitempty"`
	Priority          string     `json:"priority,omitempty"`
	Provider          string     `json:"provider,omitempty"`
	ProviderErr       string     `json:"providerErr,omitempty"`
	ProviderID        string     `json:"providerId,omitempty"`
	ProviderRef       string     `json:"providerRef,omitempty"`
	Status            string     `json:"status"`
	Attempts          int        `json:"attempts,omitempty"`
	AuthorID          string     `json:"authorId,omitempty"`
	NumberID          string     `json:"numberId,omitempty"` // the outbound channel that sends it
	SentAt            *time.Time `json:"sentAt,omitempty"`
	DeliveredAt       *time.Time `json:"deliveredAt,omitempty"`
	ReadAt            *time.Time `json:"readAt,omitempty"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt,omitzero"`
}

// Recipients are the addresses an outbound message goes to: its To, or its group.
func (m *Message) Recipients() []string {
	if len(m.Group) > 0 {
		return m.Group
	}
	return []string{m.To}
}

// Direction is "outbound" or "inbound".
func (m *Message) Direction() string {
	if m.Outbound {
		return "outbound"
	}
	return "inbound"
}

// Comment is an internal note on a conversation; it is never sent to the contact.
type Comment struct {
	ID             string    `json:"id"`
	WorkspaceID    string    `json:"workspaceId"`
	TenantID       string    `json:"tenantId"`
	ConversationID string    `json:"conversationId"`
	Text           string    `json:"text"`
	Media          []string  `json:"media"`
	Mentions       []string  `json:"mentions"`
	UserID         string    `json:"userId"`
	ThreadID       string    `json:"threadId"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// Broadcast sends one text to many recipients, each in their own conversation. The record stays
// small — every outcome of a copy rewrites it — so its targets live beside it
// (BroadcastTargetsOf) and Recipients is only filled in SendBroadcast's answer.
type Broadcast struct {
	ID             string     `json:"id"`
	WorkspaceID    string     `json:"workspaceId"`
	TenantID       string     `json:"tenantId"`
	Name           string     `json:"name,omitempty"`
	From           string     `json:"from"`
	NumberID       string     `json:"numberId,omitempty"`
	Text           string     `json:"text,omitempty"`
	Media          []string   `json:"media,omitempty"`
	Status         string     `json:"status"`
	Recipients     []string   `json:"-"`
	TotalQueued    int        `json:"totalQueued,omitempty"`
	TotalSent      int        `json:"totalSent,omitempty"`
	TotalDelivered int        `json:"totalDelivered,omitempty"`
	TotalFailed    int        `json:"totalFailed,omitempty"`
	TotalOptedOut  int        `json:"totalOptedOut,omitempty"`
	CreatedByID    string     `json:"createdById,omitempty"`
	SendAt         *time.Time `json:"sendAt,omitempty"`
	StartedAt      *time.Time `json:"startedAt,omitempty"`
	DeliveredAt    *time.Time `json:"deliveredAt,omitempty"` // when no copy was left queued or sending
	CancelledAt    *time.Time `json:"cancelledAt,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	// Outstanding counts copies still queued, held or sending; the broadcast is done at zero.
	Outstanding int `json:"outstanding,omitempty"`
	// Fanout is set while recipients are still being queued: the broadcast cannot finish then.
	Fanout bool `json:"fanout,omitempty"`
}

// OptOut records that a number asked not to be texted by a workspace.
type OptOut struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Phone       string    `json:"phone"`
	Reason      string    `json:"reason"`
	UserID      string    `json:"userId"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Token kinds.
const (
	TokenPersonal = "personal"
	TokenOAuth    = "oauth"
)

// Token is a bearer credential for the integration API. Only its SHA-256 hash is stored.
type Token struct {
	ID        string     `json:"id"`
	UserID    string     `json:"userId"`
	Name      string     `json:"name"`
	Kind      string     `json:"kind"`
	ClientID  string     `json:"clientId,omitempty"`
	GrantID   string     `json:"grantId,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
}

// Subscription is a webhook subscription of a workspace to one event name. TokenID, or GrantID
// and ClientID, name the credential it was made through; it dies with that credential and with
// its user's membership (DESIGN §6). They are empty for one made by an admin tool.
type Subscription struct {
	ID           string     `json:"id"`
	WorkspaceID  string     `json:"workspaceId"`
	EventName    string     `json:"eventName"`
	HookURL      string     `json:"hookUrl"`
	Secret       string     `json:"secret"`
	UserID       string     `json:"userId"`
	TokenID      string     `json:"tokenId,omitempty"`
	GrantID      string     `json:"grantId,omitempty"`
	ClientID     string     `json:"clientId,omitempty"`
	Active       bool       `json:"active"`
	FailingSince *time.Time `json:"failingSince,omitempty"`
	DisabledAt   *time.Time `json:"disabledAt,omitempty"`
	CreatedAt    time.Time  `json:"createdAt"`
}
