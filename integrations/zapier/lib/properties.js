'use strict';

// Custom contact properties (list-contact-properties-action) as dynamic input fields, and
// the conversion of their values back into the API's typed `properties` object.
const { call } = require('./client');

const PREFIX = 'property__';

const FIELD_TYPE = { text: 'string', number: 'number', boolean: 'boolean', date: 'datetime' };

const propertyFields = async (z, bundle) => {
  if (!bundle.inputData.workspaceId) return [];
  const props = await call(z, bundle, 'list-contact-properties-action');
  return props.map((p) => ({
    key: PREFIX + p.name,
    label: p.name,
    type: FIELD_TYPE[p.type] || 'string',
    required: false,
    helpText: `Custom property "${p.name}" (${p.type}).${p.type === 'date' ? ' Sent as the date YYYY-MM-DD.' : ''}`,
  }));
};

// typed converts what Zapier hands over (often strings) into the property's JSON type.
// Types come from the workspace, so a value the API would refuse is left as given and the
// API's validation error names the field.
const typed = (type, value) => {
  switch (type) {
    case 'number': {
      const n = typeof value === 'number' ? value : Number(String(value).trim());
      return Number.isFinite(n) ? n : value;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const s = String(value).trim().toLowerCase();
      if (['true', 'yes', '1', 'on'].includes(s)) return true;
      if (['false', 'no', '0', 'off'].includes(s)) return false;
      return value;
    }
    case 'date': {
      const m = /^(\d{4}-\d{2}-\d{2})/.exec(String(value).trim());
      return m ? m[1] : value;
    }
    default:
      return String(value);
  }
};

// propertiesFrom collects the property__ inputs that were filled in. Types are looked up only
// when some were, so a contact without properties costs no extra request.
const propertiesFrom = async (z, bundle) => {
  const given = Object.entries(bundle.inputData).filter(
    ([k, v]) => k.startsWith(PREFIX) && v !== undefined && v !== null && v !== '',
  );
  if (given.length === 0) return undefined;
  const props = await call(z, bundle, 'list-contact-properties-action');
  const types = Object.fromEntries(props.map((p) => [p.name, p.type]));
  const out = {};
  for (const [k, v] of given) {
    const name = k.slice(PREFIX.length);
    out[name] = typed(types[name], v);
  }
  return out;
};

module.exports = { PREFIX, propertyFields, propertiesFrom, typed };
