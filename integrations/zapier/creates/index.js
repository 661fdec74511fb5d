'use strict';

// The creates of the Zapier app, each one integration API call.
const { call } = require('../lib/client');
const fields = require('../lib/fields');
const { propertyFields, propertiesFrom } = require('../lib/properties');
const { outputFields, contactOutputFields } = require('../lib/output');

const T = '2026-11-21T22:13:19.123Z';
const WS = '01JD0000000000000000000000';
const CONV = '01JD00000000000000000000C1';

const create = ({ key, noun, label, description, inputFields, perform, sample, contact }) => ({
  key,
  noun,
  display: { label, description },
  operation: {
    inputFields: [fields.workspace, ...inputFields],
    perform,
    sample,
    outputFields: contact ? contactOutputFields(sample) : outputFields(sample),
  },
});

const pick = (bundle, keys) => Object.fromEntries(keys.map((k) => [k, bundle.inputData[k]]));

const contactSample = {
  email: 'maria@example.com', firstName: 'María', id: '01JD00000000000000000000K1', lastName: 'García',
  phone: '+12025550147', properties: {}, workspaceId: WS,
};

const contactFields = (firstNameRequired) => [
  fields.phone('phone', 'Phone'),
  { key: 'firstName', label: 'First Name', required: firstNameRequired },
  { key: 'lastName', label: 'Last Name' },
  { key: 'email', label: 'Email' },
  propertyFields,
];

const contactBody = async (z, bundle) => ({
  ...pick(bundle, ['phone', 'firstName', 'lastName', 'email']),
  properties: await propertiesFrom(z, bundle),
});

const creates = [
  create({
    key: 'send_message', noun: 'Message', label: 'Send Message',
    description: 'Sends a text (SMS or MMS) from one of your numbers to one recipient.',
    inputFields: [fields.fromNumber, fields.phone('to', 'To'), fields.text, fields.mediaUrl],
    perform: (z, bundle) => call(z, bundle, 'send-message-action', pick(bundle, ['from', 'to', 'text', 'mediaUrl'])),
    sample: { conversationId: CONV, from: '+14155550100', id: '01JD00000000000000000000M1', text: 'See you Friday!', to: '+12025550147', workspaceId: WS },
  }),
  create({
    key: 'send_group_message', noun: 'Group Message', label: 'Send Group Message',
    description: 'Sends one text to a group conversation of up to 10 numbers.',
    inputFields: [fields.fromNumber, { ...fields.phone('group', 'Group Members'), list: true }, fields.text, fields.mediaUrl],
    perform: (z, bundle) => call(z, bundle, 'send-group-message-action', pick(bundle, ['from', 'group', 'text', 'mediaUrl'])),
    sample: { conversationId: CONV, from: '+14155550100', group: ['+12025550147', '+12025550148'], id: '01JD00000000000000000000M2', text: 'Team lunch at noon', workspaceId: WS },
  }),
  create({
    key: 'send_broadcast', noun: 'Broadcast', label: 'Send Broadcast',
    description: 'Sends a personal copy of a text to many recipients (numbers and groups), now or at a set time.',
    inputFields: [
      fields.fromNumber,
      { ...fields.phone('recipients', 'Recipients', false), list: true },
      { key: 'groupIds', label: 'Groups', list: true, dynamic: 'group.id.name', helpText: 'Every member of these groups receives the broadcast.' },
      { key: 'excludeGroupIds', label: 'Exclude Groups', list: true, dynamic: 'group.id.name', helpText: 'Members of these groups are left out.' },
      fields.text,
      fields.mediaUrl,
      { key: 'name', label: 'Broadcast Name' },
      { key: 'sendAt', label: 'Send At', type: 'datetime', helpText: 'Schedule it (up to a year ahead); empty sends now.' },
    ],
    perform: (z, bundle) => call(z, bundle, 'send-broadcast-action',
      pick(bundle, ['from', 'recipients', 'groupIds', 'excludeGroupIds', 'text', 'mediaUrl', 'name', 'sendAt'])),
    sample: { from: '+14155550100', id: '01JD00000000000000000000B1', recipients: ['+12025550147'], status: 'sending', text: 'Hi {{firstName|there}}, we are open Saturday.', totalOptedOut: 0, workspaceId: WS },
  }),
  create({
    key: 'create_contact', noun: 'Contact', label: 'Create Contact',
    description: 'Creates a contact; fails if a contact with that phone exists (use Create or Update Contact for that).',
    inputFields: contactFields(true),
    perform: async (z, bundle) => call(z, bundle, 'create-contact-action', await contactBody(z, bundle)),
    sample: contactSample,
    contact: true,
  }),
  create({
    key: 'create_or_update_contact', noun: 'Contact', label: 'Create or Update Contact',
    description: 'Finds the contact by phone and changes the fields given, or creates it.',
    inputFields: contactFields(false),
    perform: async (z, bundle) => call(z, bundle, 'create-or-update-contact-action', await contactBody(z, bundle)),
    sample: contactSample,
    contact: true,
  }),
  create({
    key: 'create_opt_out', noun: 'Opt-Out', label: 'Create Opt-Out',
    description: 'Opts a number out: no more messages are sent to it from this workspace.',
    inputFields: [fields.phone('phone', 'Phone')],
    perform: (z, bundle) => call(z, bundle, 'create-opt-out-action', pick(bundle, ['phone'])),
    sample: { id: '01JD00000000000000000000O1', phone: '+12025550147', workspaceId: WS },
  }),
  create({
    key: 'create_comment', noun: 'Comment', label: 'Create Comment',
    description: 'Adds an internal comment (never sent to the contact) to the conversation between a number and a contact.',
    inputFields: [
      fields.fromNumber,
      fields.phone('to', 'Contact Phone'),
      { ...fields.text, helpText: 'Text or Media URL is required.' },
      fields.mediaUrl,
      { key: 'mentions', label: 'Mention User IDs', list: true, helpText: 'User ids of workspace members to mention.' },
    ],
    perform: (z, bundle) => call(z, bundle, 'create-comment-action', pick(bundle, ['from', 'to', 'text', 'mediaUrl', 'mentions'])),
    sample: { conversationId: CONV, id: '01JD00000000000000000000N1', text: 'Calling her back after lunch.', workspaceId: WS },
  }),
  create({
    key: 'create_conversation', noun: 'Conversation', label: 'Create Conversation',
    description: 'Returns the conversation between one of your numbers and a contact, creating it if needed.',
    inputFields: [fields.fromNumber, fields.phone('to', 'To')],
    perform: (z, bundle) => call(z, bundle, 'create-conversation-action', pick(bundle, ['from', 'to'])),
    sample: { from: '+14155550100', id: CONV, to: '+12025550147', workspaceId: WS },
  }),
  create({
    key: 'add_contact_to_group', noun: 'Group Membership', label: 'Add Contact to Group',
    description: 'Adds the contact with this phone to a group, creating the group if there is none of that name.',
    inputFields: [
      fields.phone('phone', 'Contact Phone'),
      { key: 'group', label: 'Group', required: true, dynamic: 'group.name.name', helpText: 'A group of the workspace, or a new name to create one.' },
    ],
    perform: async (z, bundle) => {
      const r = await call(z, bundle, 'add-contact-to-group-action', pick(bundle, ['phone', 'group']));
      return { id: `${r.groupId}:${r.contactId}`, ...r };
    },
    sample: { id: '01JD00000000000000000000G1:01JD00000000000000000000K1', contactId: '01JD00000000000000000000K1', groupId: '01JD00000000000000000000G1' },
  }),
];

module.exports = { creates, T, contactSample };
