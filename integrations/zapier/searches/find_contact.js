'use strict';

const { call } = require('../lib/client');
const fields = require('../lib/fields');

// find-contact-action: names, company and e-mail by word prefix, phone by digits; an exact
// phone or e-mail match comes first, which is the result Zapier uses.
module.exports = {
  key: 'find_contact',
  noun: 'Contact',
  display: { label: 'Find Contact', description: 'Finds a contact by name, e-mail or phone number.' },
  operation: {
    inputFields: [
      fields.workspace,
      { key: 'searchText', label: 'Search', required: true, helpText: 'A name, an e-mail address or a phone number (any format).' },
    ],
    perform: (z, bundle) => call(z, bundle, 'find-contact-action', { searchText: bundle.inputData.searchText }),
    sample: {
      email: 'maria@example.com', firstName: 'María', id: '01JD00000000000000000000K1', lastName: 'García',
      phone: '+12025550147', properties: {}, workspaceId: '01JD0000000000000000000000',
    },
  },
};
