'use strict';

// Instant (REST hook) triggers, one per webhook event. Subscribing registers the
// Zap's hook URL with subscribe-webhook; Switchboard then POSTs each event there with Standard
// Webhooks headers, signed with the subscription's secret, which perform checks.
const crypto = require('crypto');
const { call } = require('../lib/client');
const fields = require('../lib/fields');
const { outputFields, contactOutputFields } = require('../lib/output');

const T = '2026-11-21T22:13:19.123Z';
const WS = '01JD0000000000000000000000';

const samples = {
  message: {
    conversationId: '01JD00000000000000000000C1', createdAt: T, from: '+12025550147', id: '01JD00000000000000000000M1',
    media: ['https://text.example.com/media/2q8LwX4kQ9mZ7vR1tY3uE5sA/insurance-card.jpg'],
    status: 'received', text: 'Hi, can I move my appointment to Friday? Here is my insurance card.', to: '+14155550100',
    workspaceId: WS,
  },
  contact: {
    createdAt: T, email: 'maria@example.com', firstName: 'María', id: '01JD00000000000000000000K1', lastName: 'García',
    phone: '+12025550147', properties: {}, workspaceId: WS,
  },
  comment: { conversationId: '01JD00000000000000000000C1', createdAt: T, text: 'Calling her back after lunch.', workspaceId: WS },
  optOut: { conversationId: '01JD00000000000000000000C1', createdAt: T, inboundAddress: '+12025550147', optOutReason: 'keyword', workspaceId: WS },
  call: { createdAt: T, from: '+12025550147', to: '+14155550100', workspaceId: WS },
  conversation: {
    assignedUserIds: ['01JD00000000000000000000U1'], assignee: '01JD00000000000000000000U1', assigneeEmail: 'ana@example.com',
    assigneeName: 'Ana Lima', by: 'rule:01JD00000000000000000000R1', from: '+14155550100', id: '01JD00000000000000000000C1',
    labels: ['new patient'], status: 'open', to: '+12025550147', updatedAt: T, workspaceId: WS,
  },
};

// The payload fields of message.* events, the subset of list-messages-action's result that a
// delivered event carries, so a sample maps to the same fields as a live event.
const MESSAGE_FIELDS = Object.keys(samples.message);
// A field the listed message lacks is empty as in a payload: "" or, for media, [].
const asMessagePayload = (m) => Object.fromEntries(MESSAGE_FIELDS.map((k) => {
  if (m[k] !== undefined && m[k] !== null) return [k, m[k]];
  return [k, Array.isArray(samples.message[k]) ? [] : ''];
}));

const listMessages = (direction, statuses) => async (z, bundle) => {
  const messages = await call(z, bundle, 'list-messages-action', { direction, limit: 25 });
  return messages.filter((m) => !statuses || statuses.includes(m.status)).map(asMessagePayload);
};

// Contacts as the contact.* payload has them: find-contact-action's result lacks createdAt.
const listContacts = async (z, bundle) => {
  const contacts = await call(z, bundle, 'find-contact-action', { searchText: '' });
  return contacts.slice(0, 25).map((c) => ({ createdAt: '', ...c }));
};

const header = (headers, name) => {
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(headers || {})) {
    const key = k.toLowerCase();
    if (key === want || key === `http-${want}`) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
};

// verifySignature checks the Standard Webhooks signature when Zapier hands over the raw
// request and the subscription's secret: v1,base64(HMAC-SHA256(secret, id.timestamp.body)).
const verifySignature = (z, bundle) => {
  const raw = bundle.rawRequest;
  const secret = bundle.subscribeData && bundle.subscribeData.secret;
  if (!raw || typeof raw.content !== 'string' || !secret) return;
  const id = header(raw.headers, 'webhook-id');
  const ts = header(raw.headers, 'webhook-timestamp');
  const sigs = header(raw.headers, 'webhook-signature');
  if (!id || !ts || !sigs) {
    throw new z.errors.Error('The webhook has no Standard Webhooks signature headers.', 'bad_signature', 401);
  }
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const want = crypto.createHmac('sha256', key).update(`${id}.${ts}.${raw.content}`).digest();
  const ok = sigs.split(' ').some((s) => {
    const [version, value] = s.split(',');
    if (version !== 'v1' || !value) return false;
    const got = Buffer.from(value, 'base64');
    return got.length === want.length && crypto.timingSafeEqual(got, want);
  });
  if (!ok) {
    throw new z.errors.Error('The webhook signature does not match its subscription secret.', 'bad_signature', 401);
  }
};

const hookTrigger = ({ key, event, noun, label, description, sample, performList, contact }) => ({
  key,
  noun,
  display: { label, description },
  operation: {
    type: 'hook',
    inputFields: [fields.workspace],
    performSubscribe: (z, bundle) =>
      call(z, bundle, 'subscribe-webhook', {
        eventName: event,
        hookUrl: bundle.targetUrl,
        workspaceId: bundle.inputData.workspaceId,
      }, { workspace: false }),
    performUnsubscribe: (z, bundle) =>
      call(z, bundle, 'unsubscribe-webhook', {
        id: bundle.subscribeData.id,
        workspaceId: bundle.subscribeData.workspaceId || bundle.inputData.workspaceId,
      }, { workspace: false }),
    perform: (z, bundle) => {
      verifySignature(z, bundle);
      const payload = { ...bundle.cleanedRequest };
      // Comment, opt-out and call payloads carry no id: the delivery's webhook-id (stable
      // across retries) stands in, so Zapier has one to tell events apart.
      if (!payload.id && bundle.rawRequest) {
        const id = header(bundle.rawRequest.headers, 'webhook-id');
        if (id) payload.id = id;
      }
      return [payload];
    },
    performList: performList || (async () => [sample]),
    sample,
    outputFields: contact ? contactOutputFields(sample) : outputFields(sample),
  },
});

const withId = (s) => ({ id: 'msg_01JD00000000000000000000E1', ...s });

const definitions = [
  { key: 'message_received', event: 'message.received', noun: 'Message', label: 'New Inbound Message',
    description: 'Triggers when a contact texts one of your numbers.', sample: samples.message,
    performList: listMessages('inbound', null) },
  { key: 'message_sent', event: 'message.sent', noun: 'Message', label: 'Message Sent',
    description: 'Triggers when the carrier accepts an outbound message.', sample: { ...samples.message, status: 'sent' },
    performList: listMessages('outbound', ['sent', 'delivered']) },
  { key: 'message_delivered', event: 'message.delivered', noun: 'Message', label: 'Message Delivered',
    description: 'Triggers when the carrier reports an outbound message delivered.', sample: { ...samples.message, status: 'delivered' },
    performList: listMessages('outbound', ['delivered']) },
  { key: 'message_failed', event: 'message.failed', noun: 'Message', label: 'Message Failed',
    description: 'Triggers when an outbound message fails for good.', sample: { ...samples.message, status: 'failed' },
    performList: listMessages('outbound', ['failed']) },
  { key: 'comment_created', event: 'comment.created', noun: 'Comment', label: 'New Comment',
    description: 'Triggers when a teammate adds an internal comment to a conversation.', sample: withId(samples.comment) },
  { key: 'contact_created', event: 'contact.created', noun: 'Contact', label: 'New Contact',
    description: 'Triggers when a contact is created (by the API, the admin UI, an import or an inbound text).',
    sample: samples.contact, performList: listContacts, contact: true },
  { key: 'contact_updated', event: 'contact.updated', noun: 'Contact', label: 'Updated Contact',
    description: 'Triggers when a contact is changed.', sample: samples.contact, performList: listContacts, contact: true },
  // Deleted contacts cannot be listed any more: the sample stands in for them.
  { key: 'contact_deleted', event: 'contact.deleted', noun: 'Contact', label: 'Deleted Contact',
    description: 'Triggers when a contact is deleted (or erased).', sample: samples.contact, contact: true },
  { key: 'opt_out_created', event: 'opt_out.created', noun: 'Opt-Out', label: 'New Opt-Out',
    description: 'Triggers when a number opts out (STOP keyword, the API, the carrier or an admin).', sample: withId(samples.optOut) },
  { key: 'call_received', event: 'call.received', noun: 'Call', label: 'New Call',
    description: 'Triggers when someone calls one of your numbers.', sample: withId(samples.call) },
  // Conversations cannot be listed through the API: the samples stand in for them.
  { key: 'conversation_assigned', event: 'conversation.assigned', noun: 'Conversation', label: 'Conversation Assigned',
    description: 'Triggers when a member is assigned a conversation: by a teammate, a rule or auto-assignment.',
    sample: samples.conversation },
  { key: 'conversation_closed', event: 'conversation.closed', noun: 'Conversation', label: 'Conversation Closed',
    description: 'Triggers when a conversation is closed, by a teammate or a rule.',
    sample: { ...samples.conversation, status: 'closed', by: '01JD00000000000000000000U1' } },
];

const triggers = definitions.map(hookTrigger);

module.exports = { triggers, verifySignature, header, samples };
