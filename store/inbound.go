package store

import (
	"bytes"
	"slices"
	"strings"
	"time"

	"switchboard/store/kv"
)

// Keyword is the compliance keyword family an inbound text belongs to, and so the action it
// carries: the store acts on it (opt out, opt back in, reply), the carrier package recognises
// the words. NoKeyword, the zero value, is an ordinary text.
type Keyword string

// The keyword families.
const (
	NoKeyword    Keyword = ""
	KeywordStop  Keyword = "stop"  // STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT: opt out
	KeywordStart Keyword = "start" // START, UNSTOP, YES: opt back in
	KeywordHelp  Keyword = "help"  // HELP, INFO: the help reply
)

// String names the family, for logs: "none" for an ordinary text.
func (k Keyword) String() string {
	if k == NoKeyword {
		return "none"
	}
	return string(k)
}

// InboundMessage is a text a contact sent to one of the workspace's numbers, as the carrier
// parsed it. To is the workspace's number; From the contact's address.
type InboundMessage struct {
	From         string
	To           string
	Text         string
	Media        []string
	Provider     string // sandbox, twilio
	ProviderID   string // the carrier's id of the message; a repeated one is recorded once
	MultipartID  string // shared by the parts of one long message
	MultipartNum int
	Segments     int
	Keyword      Keyword // KeywordStop, KeywordStart, KeywordHelp or NoKeyword
	// PossibleOptOut: the text asks to stop in other words than a keyword ("stop texting me").
	// It is flagged for a person (LabelPossibleOptOut on the conversation), never acted on.
	PossibleOptOut bool
	// SentAt is when the contact sent it, as the carrier's listing says, for a text recovered
	// after its webhook was missed; zero for a webhook, which comes as the text does. A
	// recovered STOP or START whose word on consent a later one overrides is kept but not acted
	// on (StaleKeyword), and the consent it records is dated SentAt.
	SentAt time.Time
}

// LabelPossibleOptOut is the conversation label of a text that reads like a request to stop.
const LabelPossibleOptOut = "possible opt-out"

// InboundResult is what recording an inbound text did.
type InboundResult struct {
	Message   Message
	Duplicate bool     // the carrier's id was recorded before: nothing was done again
	Blocked   bool     // the sender is blocked: stored silently
	Reply     *Message // the keyword reply queued, if any
	OptOut    *OptOut  // the opt-out a stop keyword created
	Removed   bool     // a start keyword removed an opt-out
	// StaleKeyword: a recovered keyword was not acted on, because consent changed after the
	// contact sent it (see InboundMessage.SentAt).
	StaleKeyword bool
	At           time.Time // when it was recorded
}

// RecordInboundMessage stores an inbound message (status received) in the 1:1 conversation of
// To and From, creating the contact (source inbound) and the conversation when needed, reopening
// the conversation, setting the contact's lastInboundMessageTime and emitting message.received —
// and acts on its keyword (an opt-out created or removed, a reply queued at high priority) — all
// in one transaction. To must be an active number of the workspace (the carrier routes with
// NumberByPhone); From must be E.164. A ProviderID already recorded is a duplicate (carriers
// retry) and changes nothing. A blocked sender's message is stored but emits nothing, opens
// nothing and is not acted on.
func (s *Store) RecordInboundMessage(workspaceID string, in InboundMessage) (Message, error) {
	r, err := s.ReceiveMessage(workspaceID, in)
	return r.Message, err
}

// ReceiveMessage is RecordInboundMessage with the whole result.
func (s *Store) ReceiveMessage(workspaceID string, in InboundMessage) (InboundResult, error) {
	in.From, in.To = strings.TrimSpace(in.From), strings.TrimSpace(in.To)
	if !ValidE164(in.From) {
		return InboundResult{}, ValidationError{{"from", E164Message}}
	}
	var r InboundResult
	err := s.update(func(tx *wtx) error {
		r = InboundResult{}
		w, err := getWorkspace(tx.Tx, workspaceID)
		if err != nil {
			return tx.refuse(err)
		}
		n, ok, err := activeNumber(tx.Tx, workspaceID, in.To)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "number %s is not an active number of this workspace", in.To))
		}
		if in.ProviderID != "" {
			if v := tx.Bucket(bMsgProvider).Get(providerKey(in.Provider, in.ProviderID)); len(v) == 32 {
				r.Duplicate = true
				_, err := getJSON(tx.Bucket(bMessages), v, &r.Message)
				return err
			}
		}
		now := s.Now()
		r.At = now
		r.Blocked = isBlocked(tx.Tx, workspaceID, in.From)
		// The contact first, so that a new one is recorded as inbound (conversationFor would
		// make it an API contact).
		c, err := s.ensureContact(tx, workspaceID, in.From, SourceInbound)
		if err != nil {
			return err
		}
		conv, created, err := s.conversationFor(tx, workspaceID, n, []string{in.From}, nil)
		if err != nil {
			return err
		}
		m := Message{ID: s.NewID(), WorkspaceID: workspaceID, ConversationID: conv.ID, CommunicationType: CommSMS,
			From: in.From, To: n.Phone, Text: in.Text, Media: in.Media,
			MultipartID: in.MultipartID, MultipartNum: in.MultipartNum, Segments: in.Segments,
			Provider: in.Provider, ProviderID: in.ProviderID, Status: MessageReceived, NumberID: n.ID,
			CreatedAt: now, UpdatedAt: now, Blocked: r.Blocked}
		if m.Segments == 0 {
			m.Segments = Segments(m.Text)
		}
		if err := putMessage(tx, &m); err != nil {
			return err
		}
		// Twilio's media URLs need the account's credentials and vanish when the account deletes
		// them: they are fetched into the store after this commit (queueMediaFetches).
		if in.Provider == ProviderTwilio {
			if err := s.queueMediaFetches(tx.Tx, &m); err != nil {
				return err
			}
		}
		r.Message = m
		if in.ProviderID != "" {
			if err := tx.Bucket(bMsgProvider).Put(providerKey(in.Provider, in.ProviderID), wsKey(workspaceID, m.ID)); err != nil {
				return err
			}
		}
		if r.Blocked {
			return nil
		}
		auto := inboundFacts{created: created, reopened: !created && conv.Status != ConversationOpen,
			first: c.LastInboundMessageTime == nil}
		if in.PossibleOptOut && in.Keyword == NoKeyword && !slices.Contains(conv.Labels, LabelPossibleOptOut) {
			// Flagged in the message's own transaction, so the inbox never shows the text
			// without its flag; a number already opted out needs no flag.
			opted, err := s.isOptedOut(tx.Tx, workspaceID, in.From)
			if err != nil {
				return err
			}
			if !opted {
				conv.Labels = append(slices.Clone(conv.Labels), LabelPossibleOptOut)
				auto.flagged = true
			}
		}
		// A text that is no keyword waits for an answer from now, unless one waits already.
		if conv.AwaitingSince == nil && in.Keyword == NoKeyword {
			conv.AwaitingSince, auto.newWait = &now, true
		}
		if err := touchConversation(tx.Tx, &conv, now, true); err != nil {
			return err
		}
		// The live inbox hears of it: the message, who it is unread for, who is notified.
		if err := s.liveInbound(tx, &conv, &m, c); err != nil {
			return err
		}
		// Replies sent later wait for no answer: the contact's text cancels them.
		if err := s.cancelSendLater(tx, workspaceID, conv.ID, ReplyFirstError); err != nil {
			return err
		}
		// The contact's last inbound time is not part of its search document or its webhook
		// payload, so this is a plain rewrite with no contact.updated event.
		old := c
		c.LastInboundMessageTime = &now
		if err := s.putContact(tx, &c, &old); err != nil {
			return err
		}
		if err := s.emit(tx, workspaceID, EventMessageReceived, messagePayload(&m)); err != nil {
			return err
		}
		if err := s.actOnKeyword(tx, &w, &conv, in, &r); err != nil {
			return err
		}
		// Routing and automations: assignment, automatic replies, rules.
		return s.automateInbound(tx, &w, &n, &conv, &m, &c, &in, auto)
	})
	if err == nil && !r.Duplicate && in.Provider == ProviderTwilio && len(r.Message.Media) > 0 {
		s.notifyMedia()
	}
	return r, err
}

// actOnKeyword applies a keyword and queues its reply (high priority, sent even to a number
// that just opted out). An empty reply setting sends nothing.
func (s *Store) actOnKeyword(tx *wtx, w *Workspace, conv *Conversation, in InboundMessage, r *InboundResult) error {
	if in.Keyword != NoKeyword && !in.SentAt.IsZero() {
		stale, err := staleKeyword(tx.Tx, w.ID, in)
		if err != nil || stale {
			r.StaleKeyword = stale
			return err
		}
	}
	switch in.Keyword {
	case KeywordStop:
		bid, err := latestTeamBroadcast(tx.Tx, w.ID, conv.ID)
		if err != nil {
			return err
		}
		o, created, err := s.createOptOut(tx, w.ID, "", in.From, OptOutKeyword, optOutSource{numberID: conv.OutboundChannelID, broadcastID: bid, at: in.SentAt})
		if err != nil {
			return err
		}
		if created {
			r.OptOut = &o
		}
	case KeywordStart:
		removed, err := removeOptOut(tx, w.ID, in.From)
		if err != nil {
			return err
		}
		r.Removed = removed
		// START records consent granted, whether or not an opt-out was lifted: the contact
		// asked to be texted.
		at := r.At
		if !in.SentAt.IsZero() {
			at = in.SentAt
		}
		if err := s.addConsent(tx.Tx, w.ID, in.From, Consent{Status: ConsentGranted, Source: ConsentKeyword,
			Method: "Texted " + strings.ToUpper(strings.TrimSpace(in.Text)), Evidence: in.Text, At: at}); err != nil {
			return err
		}
	case KeywordHelp:
	default:
		return nil
	}
	text := w.KeywordReply(in.Keyword)
	if text == "" {
		return nil
	}
	reply, err := s.queueMessage(tx, conv, false, r.At, SendInput{Text: text, Auto: AutoKeyword}, PriorityHigh, "")
	if err != nil {
		return err
	}
	r.Reply = &reply
	return nil
}

// staleKeyword reports whether a recovered keyword came before a later word on consent, which
// then stands: a STOP before the contact texted START again (they asked to be texted after all),
// a START before any opt-out (the contact's STOP, a carrier's, the team's). HELP is never stale.
// The consent history says when each change happened, dated by the text that made it.
func staleKeyword(tx *kv.Tx, workspaceID string, in InboundMessage) (bool, error) {
	p := idxPrefix(workspaceID, in.From)
	c := tx.Bucket(bConsents).Cursor()
	for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
		var e Consent
		if err := jsonUnmarshal(v, &e); err != nil {
			return false, err
		}
		if !e.At.After(in.SentAt) {
			continue
		}
		switch {
		case in.Keyword == KeywordStop && e.Status == ConsentGranted && e.Source == ConsentKeyword:
			return true, nil
		case in.Keyword == KeywordStart && e.Status == ConsentRevoked:
			return true, nil
		}
	}
	return false, nil
}

// Default keyword replies and voice greeting; %s is the workspace's name.
const (
	DefaultStopReply     = "%s: you are unsubscribed and will get no more messages. Reply START to resubscribe."
	DefaultStartReply    = "%s: you are resubscribed and will get messages again. Reply STOP to unsubscribe."
	DefaultHelpReply     = "%s: reply STOP to unsubscribe, START to resubscribe. Msg & data rates may apply."
	DefaultVoiceGreeting = "Please send us a text message at this number."
)

// KeywordReply is the reply text for a keyword: the workspace's setting, else the default that
// names the workspace; "" sends no reply.
func (w *Workspace) KeywordReply(keyword Keyword) string {
	var set *string
	def := ""
	switch keyword {
	case KeywordStop:
		set, def = w.StopReply, DefaultStopReply
	case KeywordStart:
		set, def = w.StartReply, DefaultStartReply
	case KeywordHelp:
		set, def = w.HelpReply, DefaultHelpReply
	default:
		return ""
	}
	if set != nil {
		return *set
	}
	return strings.ReplaceAll(def, "%s", w.Name)
}

// Greeting is the voice greeting callers hear: the workspace's setting, else (unset or empty:
// a caller always hears something) the default.
func (w *Workspace) Greeting() string {
	if w.VoiceGreeting != nil && *w.VoiceGreeting != "" {
		return *w.VoiceGreeting
	}
	return DefaultVoiceGreeting
}

// RecordInboundCall emits call.received for a call from From to the workspace's number To and
// returns the payload and the greeting to speak. Calls are not stored beyond their event
// (Switchboard does not handle voice); the caller is not made a contact. A blocked caller emits
// nothing.
func (s *Store) RecordInboundCall(workspaceID, from, to string) (CallPayload, string, error) {
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	var p CallPayload
	greeting := ""
	err := s.update(func(tx *wtx) error {
		w, err := getWorkspace(tx.Tx, workspaceID)
		if err != nil {
			return tx.refuse(err)
		}
		greeting = w.Greeting()
		n, ok, err := activeNumber(tx.Tx, workspaceID, to)
		if err != nil {
			return err
		}
		if !ok {
			return tx.refuse(errorf(ErrNotFound, "number %s is not an active number of this workspace", to))
		}
		p = CallPayload{CreatedAt: FormatTime(s.Now()), From: from, To: n.Phone, WorkspaceID: workspaceID}
		if isBlocked(tx.Tx, workspaceID, from) {
			return nil
		}
		return s.emit(tx, workspaceID, EventCallReceived, p)
	})
	return p, greeting, err
}

// ---- blocked numbers ----

// Block is a number a workspace no longer hears from.
type Block struct {
	Phone     string    `json:"phone"`
	UserID    string    `json:"userId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

func blockKey(workspaceID, phone string) []byte {
	return append(idKey(workspaceID), phone...)
}

func isBlocked(tx *kv.Tx, workspaceID, phone string) bool {
	return tx.Bucket(bBlocked).Get(blockKey(workspaceID, phone)) != nil
}

// SetBlocked blocks or unblocks a number for a workspace: a blocked number's texts are stored
// but emit nothing and open nothing, its calls emit nothing.
func (s *Store) SetBlocked(workspaceID, userID, phone string, blocked bool) error {
	phone = strings.TrimSpace(phone)
	if !ValidE164(phone) {
		return ValidationError{{"phone", E164Message}}
	}
	return s.update(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return tx.refuse(err)
		}
		if isBlocked(tx.Tx, workspaceID, phone) == blocked {
			return nil
		}
		// The change shows in the threads with the number (logBlock).
		if err := s.logBlock(tx, workspaceID, userID, phone, blocked); err != nil {
			return err
		}
		if !blocked {
			return tx.Bucket(bBlocked).Delete(blockKey(workspaceID, phone))
		}
		return putJSON(tx.Bucket(bBlocked), blockKey(workspaceID, phone), Block{Phone: phone, UserID: userID, CreatedAt: s.Now()})
	})
}

// IsBlocked reports whether the workspace blocked phone.
func (s *Store) IsBlocked(workspaceID, phone string) (bool, error) {
	var out bool
	err := s.view(func(tx *kv.Tx) error {
		if _, ok := ParseID(workspaceID); ok {
			out = isBlocked(tx, workspaceID, phone)
		}
		return nil
	})
	return out, err
}
