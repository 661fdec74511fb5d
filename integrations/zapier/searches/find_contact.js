'use strict';

const { call } = require('../lib/client');
const fields = require('../lib/fields');
const { contactOutputFields } = require('../lib/output');

const sample = {
  email: 'maria@example.com', firstName: 'María', id: '01JD00000000000000000000K1', lastName: 'García',
  phone: '+12025550147', properties: {}, workspaceId: '01JD0000000000000000000000',
};

// find-contact-action: names, company and e-mail by word prefix, phone by digits; an exact
// phone or e-mail match comes first, which is the result Zapier uses.
const findContact = {
  key: 'find_contact',
  noun: 'Contact',
  display: { label: 'Find Contact', description: 'Finds a contact by name, e-mail or phone number.' },
  operation: {
    inputFields: [
      fields.workspace,
      { key: 'searchText', label: 'Search', required: true, helpText: 'A name, an e-mail address or a phone number (any format).' },
    ],
    perform: (z, bundle) => call(z, bundle, 'find-contact-action', { searchText: bundle.inputData.searchText }),
    sample,
    outputFields: contactOutputFields(sample),
  },
};

// The search half of "Find or Create Contact": the contact whose phone is exactly this number,
// or none (then Zapier runs Create Contact with the same phone). A search by digits also finds
// numbers that merely contain them, so only the exact match counts.
const findContactByPhone = {
  key: 'find_contact_by_phone',
  noun: 'Contact',
  display: { label: 'Find Contact by Phone', description: 'Finds the contact with exactly this phone number.' },
  operation: {
    inputFields: [fields.workspace, fields.phone('phone', 'Phone')],
    perform: async (z, bundle) => {
      const phone = String(bundle.inputData.phone || '').trim();
      const found = await call(z, bundle, 'find-contact-action', { searchText: phone });
      return found.filter((c) => c.phone === phone).slice(0, 1);
    },
    sample,
    outputFields: contactOutputFields(sample),
  },
};

// Find or Create Contact: Zapier runs the search, and the create when it finds nothing.
const findOrCreateContact = {
  key: 'find_contact_by_phone',
  display: {
    label: 'Find or Create Contact',
    description: 'Finds the contact with this phone number, or creates it.',
  },
  search: 'find_contact_by_phone',
  create: 'create_contact',
};

module.exports = { findContact, findContactByPhone, findOrCreateContact };
