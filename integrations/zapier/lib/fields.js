'use strict';

// Input fields shared by triggers, creates and the search.

const workspace = {
  key: 'workspaceId',
  label: 'Workspace',
  required: true,
  dynamic: 'workspace.id.name',
  altersDynamicFields: true,
  helpText: 'The Switchboard workspace to act in.',
};

const fromNumber = {
  key: 'from',
  label: 'From Number',
  required: true,
  dynamic: 'phone_number.phone.name',
  helpText: "One of the workspace's phone numbers, in E.164 form (+14155550100).",
};

const phone = (key, label, required = true) => ({
  key,
  label,
  required,
  helpText: 'In E.164 form: + and the country code, digits only, such as +12025550147.',
});

const text = { key: 'text', label: 'Text', type: 'text', helpText: 'Text or Media URL (or both) is required. Merge tags such as {{firstName|there}} are filled in per recipient.' };
const mediaUrl = { key: 'mediaUrl', label: 'Media URL', helpText: 'An http(s) URL of an image or file to send as MMS, with spaces and accented letters percent-encoded (%20 for a space).' };

module.exports = { workspace, fromNumber, phone, text, mediaUrl };
