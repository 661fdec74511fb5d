'use strict';

// The offline part of `zapier validate`: the app definition, with its functions compiled the
// way the CLI does, must satisfy zapier-platform-schema. No Zapier account, no network.
const assert = require('assert');
const zapier = require('zapier-platform-core');
const { validateAppDefinition } = require('zapier-platform-schema');
const App = require('../index');

const run = (command) =>
  new Promise((resolve, reject) => {
    zapier.createAppHandler(App)({ command }, {}, (err, res) => (err ? reject(err) : resolve(res.results)));
  });

describe('schema (zapier validate, offline)', () => {
  it('the compiled app has no schema errors (the CLI validate command)', async () => {
    const errors = await run('validate');
    assert.deepStrictEqual(errors.map((e) => e.stack), []);
  });

  it('the serialized definition validates with zapier-platform-schema', async () => {
    const definition = await run('definition');
    const { errors } = validateAppDefinition(definition);
    assert.deepStrictEqual(errors.map((e) => e.stack), []);
  });

  it('pins zapier-platform-core exactly and matches the platform version', () => {
    const pkg = require('../package.json');
    assert.match(pkg.dependencies['zapier-platform-core'], /^\d+\.\d+\.\d+$/);
    assert.strictEqual(App.platformVersion, pkg.dependencies['zapier-platform-core']);
  });

  it('has an instant trigger for every webhook event', () => {
    // Every event of the OpenAPI document's webhooks (contact.deleted among them).
    const doc = require('../../../openapi.json');
    const events = Object.keys(doc.webhooks);
    assert.ok(events.includes('contact.deleted'), events.join());
    assert.ok(events.length >= 10, events.join());
    for (const e of events) {
      const t = App.triggers[e.replace('.', '_')];
      assert.ok(t, `no trigger for ${e}`);
      assert.strictEqual(t.operation.type, 'hook');
      assert.ok(t.operation.performList && t.operation.performSubscribe && t.operation.performUnsubscribe);
    }
  });

  it('declares outputFields on every trigger, create and search', () => {
    for (const kind of ['triggers', 'creates', 'searches']) {
      for (const [key, def] of Object.entries(App[kind])) {
        const out = def.operation.outputFields;
        assert.ok(Array.isArray(out) && out.length > 0, `${kind}.${key} has no outputFields`);
        const keys = out.filter((f) => typeof f === 'object').map((f) => f.key);
        for (const k of Object.keys(def.operation.sample)) assert.ok(keys.includes(k), `${kind}.${key}: sample field ${k} is not declared`);
      }
    }
  });

  it('message samples carry media', () => {
    for (const key of ['message_received', 'message_sent', 'message_delivered', 'message_failed']) {
      const { sample } = App.triggers[key].operation;
      assert.ok(Array.isArray(sample.media), key);
      assert.ok(App.triggers[key].operation.outputFields.some((f) => f.key === 'media' && f.list), key);
    }
  });

  it('asks for the Switchboard URL first, and finds or creates contacts', () => {
    const [first] = App.authentication.fields;
    assert.strictEqual(first.key, 'serverUrl');
    assert.strictEqual(first.required, true);
    const soc = App.searchOrCreates.find_contact_by_phone;
    assert.ok(soc && App.searches[soc.search] && App.creates[soc.create], 'search-or-create names a search and a create');
    assert.strictEqual(soc.key, soc.search);
    assert.strictEqual(soc.create, 'create_contact');
  });

  it('reads the Switchboard URL as people type it', () => {
    const { normalizeServerUrl } = require('../lib/client');
    const ok = {
      'text.example.com': 'https://text.example.com',
      ' https://text.example.com/ ': 'https://text.example.com',
      'http://127.0.0.1:8080': 'http://127.0.0.1:8080',
      'https://example.com/switchboard/': 'https://example.com/switchboard',
    };
    for (const [input, want] of Object.entries(ok)) assert.strictEqual(normalizeServerUrl(input), want, input);
    for (const bad of ['', 'ftp://example.com', 'https://example.com/?a=1', 'https://user:pw@example.com', 'https://']) {
      assert.throws(() => normalizeServerUrl(bad), /Switchboard URL|not a URL|not a Switchboard URL/, bad);
    }
  });
});
