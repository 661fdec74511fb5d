'use strict';

// Hidden triggers behind the dynamic dropdowns: workspaces, their phone numbers and groups.
const { call } = require('../lib/client');
const { outputFields } = require('../lib/output');

const hidden = (key, noun, perform, sample) => ({
  key,
  noun,
  display: { label: `List ${noun}s`, description: `Lists ${noun}s for a dropdown.`, hidden: true },
  operation: { perform, sample, outputFields: outputFields(sample) },
});

const workspace = hidden(
  'workspace',
  'Workspace',
  async (z, bundle) => {
    const me = await call(z, bundle, 'me-action', {}, { workspace: false });
    return me.workspaces;
  },
  { id: '01JD0000000000000000000000', name: 'Acme Dental' },
);

// The number dropdown keys on the phone (the API's `from` is a phone number, not an id) and
// still returns each number's id, which Zapier needs to tell the items apart.
const phoneNumber = hidden(
  'phone_number',
  'Phone Number',
  async (z, bundle) => {
    if (!bundle.inputData.workspaceId) return [];
    const numbers = await call(z, bundle, 'list-phone-numbers-action');
    return numbers.map((n) => ({ ...n, name: n.name ? `${n.name} (${n.phone})` : n.phone }));
  },
  { id: '01JD0000000000000000000001', phone: '+14155550100', name: 'Main (+14155550100)' },
);

const group = hidden(
  'group',
  'Group',
  async (z, bundle) => {
    if (!bundle.inputData.workspaceId) return [];
    return call(z, bundle, 'list-groups-action');
  },
  { id: '01JD0000000000000000000002', name: 'VIP', size: 12 },
);

module.exports = { workspace, phoneNumber, group };
