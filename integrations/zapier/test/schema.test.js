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
    const events = ['message.received', 'message.sent', 'message.delivered', 'message.failed', 'comment.created',
      'contact.created', 'contact.updated', 'opt_out.created', 'call.received'];
    for (const e of events) {
      const t = App.triggers[e.replace('.', '_')];
      assert.ok(t, `no trigger for ${e}`);
      assert.strictEqual(t.operation.type, 'hook');
      assert.ok(t.operation.performList && t.operation.performSubscribe && t.operation.performUnsubscribe);
    }
  });
});
