'use strict';

// outputFields declares what a trigger, create or search returns, from its sample: Zapier shows
// these names and types when a later step maps the fields, before any real data exists. Custom
// contact properties are added per workspace (properties__<name>, Zapier's path for nested
// keys) when the step's workspace is known.
const { call } = require('./client');

const LABELS = {
  id: 'ID', workspaceId: 'Workspace ID', conversationId: 'Conversation ID', contactId: 'Contact ID', groupId: 'Group ID',
  userId: 'User ID', createdAt: 'Created At', updatedAt: 'Updated At', firstName: 'First Name', lastName: 'Last Name',
  email: 'Email', phone: 'Phone', from: 'From', to: 'To', text: 'Text', media: 'Media URLs', status: 'Status',
  group: 'Group Members', recipients: 'Recipients', totalOptedOut: 'Recipients Opted Out', inboundAddress: 'Phone',
  optOutReason: 'Opt-Out Reason', name: 'Name', properties: 'Custom Properties', segments: 'Segments', sendAt: 'Send At',
  assignedUserIds: 'Assignees (User IDs)', assignee: 'Assignee (User ID)', assigneeEmail: 'Assignee Email',
  assigneeName: 'Assignee Name', by: 'Done By (User ID, rule:ID or auto:mode)', labels: 'Labels',
};

const label = (key) => LABELS[key] || key.replace(/([A-Z])/g, ' $1').replace(/^./, (c) => c.toUpperCase());

const isTime = (key, value) => /At$/.test(key) && (value === '' || /^\d{4}-\d{2}-\d{2}T/.test(String(value)));

const fieldFor = (key, value) => {
  if (Array.isArray(value)) return { key, label: label(key), type: 'string', list: true };
  if (value !== null && typeof value === 'object') return { key, label: label(key), dict: true };
  if (typeof value === 'number') return { key, label: label(key), type: 'number' };
  if (typeof value === 'boolean') return { key, label: label(key), type: 'boolean' };
  if (isTime(key, value)) return { key, label: label(key), type: 'datetime' };
  return { key, label: label(key), type: 'string' };
};

const outputFields = (sample) => Object.entries(sample).map(([k, v]) => fieldFor(k, v));

const PROPERTY_TYPE = { text: 'string', number: 'number', boolean: 'boolean', date: 'string' };

// contactOutputFields adds the workspace's custom properties to a contact's fields.
const contactOutputFields = (sample) => [
  ...outputFields(sample),
  async (z, bundle) => {
    if (!bundle.inputData || !bundle.inputData.workspaceId) return [];
    const props = await call(z, bundle, 'list-contact-properties-action');
    return props.map((p) => ({ key: `properties__${p.name}`, label: `Property: ${p.name}`, type: PROPERTY_TYPE[p.type] || 'string' }));
  },
];

module.exports = { outputFields, contactOutputFields, label };
