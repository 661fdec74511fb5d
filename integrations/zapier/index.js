'use strict';

// Switchboard's Zapier app, one for every installation: OAuth 2.0 against the Switchboard URL the
// connection names, instant triggers for every webhook event, the creates, the searches and
// Find or Create Contact.
const { version } = require('./package.json');
const { version: platformVersion } = require('zapier-platform-core');
const authentication = require('./authentication');
const { throwForApiError } = require('./lib/client');
const dropdowns = require('./triggers/dropdowns');
const { triggers: hooks } = require('./triggers/hooks');
const { creates } = require('./creates');
const { findContact, findContactByPhone, findOrCreateContact } = require('./searches/find_contact');
const { getReport } = require('./searches/report');

const byKey = (list) => Object.fromEntries(list.map((x) => [x.key, x]));

module.exports = {
  version,
  platformVersion,
  authentication,
  afterResponse: [throwForApiError],
  triggers: byKey([...hooks, dropdowns.workspace, dropdowns.phoneNumber, dropdowns.group]),
  creates: byKey(creates),
  searches: byKey([findContact, findContactByPhone, getReport]),
  searchOrCreates: byKey([findOrCreateContact]),
  resources: {},
};
