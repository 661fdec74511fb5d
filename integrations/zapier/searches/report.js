'use strict';

const { call } = require('../lib/client');
const fields = require('../lib/fields');
const { outputFields } = require('../lib/output');

const sample = {
  id: '2026-03-01..2026-03-07',
  from: '2026-03-01',
  to: '2026-03-07',
  conversations: { opened: 42, replied: 38, closed: 35 },
  messages: { inbound: 180, outbound: 150, automatic: 6, broadcast: 1200 },
  firstResponseSeconds: { median: 420, p90: 3300 },
  resolutionSeconds: { median: 7200, p90: 86400 },
  optOuts: 9,
  members: [{ userId: '01JD0000000000000000000003', assigned: 20, replied: 19, closed: 18, firstResponseMedianSeconds: 380 }],
  days: [{ date: '2026-03-01', inbound: 20, outbound: 18 }],
};

// A date as Switchboard reads it: YYYY-MM-DD (a date-time Zapier formatted keeps its day).
const day = (v) => {
  const s = String(v || '').trim();
  return /^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : s;
};

// get-report-action: the workspace's figures for a range of days, as /reports shows them. The
// result carries an id (the range) as every search result does.
const getReport = {
  key: 'get_report',
  noun: 'Report',
  display: {
    label: 'Get Report',
    description: "Gets the workspace's figures for a range of days: conversations, texts, response times, opt-outs and members.",
  },
  operation: {
    inputFields: [
      fields.workspace,
      { key: 'from', label: 'From', required: true, helpText: "The first day, YYYY-MM-DD, in the workspace's time zone." },
      { key: 'to', label: 'To', required: true, helpText: 'The last day, YYYY-MM-DD (at most 400 days in all).' },
      { key: 'numberId', label: 'Phone Number', dynamic: 'phone_number.id.name', helpText: "Only this number's figures." },
      { key: 'memberId', label: 'Member User ID', helpText: "Only this member's figures (a user id)." },
    ],
    perform: async (z, bundle) => {
      const { from, to, numberId, memberId } = bundle.inputData;
      const r = await call(z, bundle, 'get-report-action', { from: day(from), to: day(to), numberId, memberId });
      return [{ id: `${r.from}..${r.to}`, ...r }];
    },
    sample,
    outputFields: outputFields(sample),
  },
};

module.exports = { getReport };
