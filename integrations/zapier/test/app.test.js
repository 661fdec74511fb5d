'use strict';

// The app driven by zapier-platform-core's app tester against the real switchboard binary:
// OAuth sign-in and consent over HTTP, the auth test and label, dropdowns, dynamic property
// fields, a REST-hook subscription with an event actually delivered, performList samples,
// every create, the search, and the refresh-token rotation.
const assert = require('assert');
const crypto = require('crypto');
const zapier = require('zapier-platform-core');
const { Switchboard, Receiver, goMissing, sleep } = require('./switchboard');

const PASSWORD = 'correct horse battery';
const EMAIL = 'zoe@example.com';
const REDIRECT = 'http://127.0.0.1/callback';
const NUMBER = '+14155550100';
const EVENTS = {
  message_received: 'message.received', message_sent: 'message.sent', message_delivered: 'message.delivered',
  message_failed: 'message.failed', comment_created: 'comment.created', contact_created: 'contact.created',
  contact_updated: 'contact.updated', contact_deleted: 'contact.deleted', opt_out_created: 'opt_out.created',
  call_received: 'call.received', conversation_assigned: 'conversation.assigned', conversation_closed: 'conversation.closed',
};

const rejects = async (promise, pattern) => {
  try {
    await promise;
  } catch (err) {
    assert.match(`${err.name}: ${err.message}`, pattern);
    return err;
  }
  throw new Error(`expected an error matching ${pattern}, but the call succeeded`);
};

describe('Switchboard Zapier app against the real binary', function () {
  this.timeout(180000);
  let sb, rx, App, appTester;
  let user, ws, otherWs, groupId;
  let authData;
  const bundle = (inputData = {}, extra = {}) => ({ authData, inputData: { workspaceId: ws, ...inputData }, ...extra });

  before(async function () {
    this.timeout(600000); // a cold `go build` on a 2-core CI machine takes minutes
    const reason = goMissing();
    if (reason) {
      console.log(`    skipping the app tests: ${reason}`);
      this.skip();
    }
    sb = new Switchboard();
    sb.build();
    [user] = sb.admin('create-user', '--email', EMAIL, '--name', 'Zoe Zap', '--password', PASSWORD);
    [ws] = sb.admin('create-workspace', '--name', 'Acme Dental');
    [otherWs] = sb.admin('create-workspace', '--name', 'Beta Clinic');
    sb.admin('add-member', '--workspace', ws, '--user', user, '--role', 'admin');
    sb.admin('add-member', '--workspace', otherWs, '--user', user);
    sb.admin('add-number', '--workspace', ws, '--phone', NUMBER, '--name', 'Main');
    sb.admin('add-number', '--workspace', ws, '--phone', '+14155550101');
    sb.admin('add-property', '--workspace', ws, '--name', 'plan', '--type', 'text');
    sb.admin('add-property', '--workspace', ws, '--name', 'seats', '--type', 'number');
    sb.admin('add-property', '--workspace', ws, '--name', 'vip', '--type', 'boolean');
    sb.admin('add-property', '--workspace', ws, '--name', 'renewal', '--type', 'date');
    [groupId] = sb.admin('create-group', '--workspace', ws, '--name', 'VIP');
    const [clientId, clientSecret] = sb.admin('create-oauth-client', '--name', 'Zapier', '--redirect-uri', REDIRECT);
    assert.ok(clientId && clientSecret, 'create-oauth-client prints the id and the secret');
    await sb.start();
    rx = new Receiver();
    await rx.listen();
    process.env.CLIENT_ID = clientId;
    process.env.CLIENT_SECRET = clientSecret;
    App = require('../index');
    appTester = zapier.createAppTester(App);
  });

  after(async () => {
    if (rx) await rx.close();
    if (sb) await sb.stop();
  });

  describe('authentication', () => {
    // connect runs the whole flow once: authorizeUrl, sign-in and consent, getAccessToken.
    const connect = async () => {
      const state = crypto.randomBytes(8).toString('hex');
      // The connection's first field is the Switchboard URL; every request goes there.
      const url = await appTester(App.authentication.oauth2Config.authorizeUrl, {
        inputData: { serverUrl: `${sb.url}/`, state, redirect_uri: REDIRECT },
      });
      const authorize = new URL(url);
      assert.strictEqual(`${authorize.origin}${authorize.pathname}`, `${sb.url}/oauth/authorize`);
      assert.strictEqual(authorize.searchParams.get('scope'), 'integrations');
      assert.strictEqual(authorize.searchParams.get('client_id'), process.env.CLIENT_ID);
      const back = await sb.authorize(url, EMAIL, PASSWORD);
      assert.strictEqual(`${back.origin}${back.pathname}`, REDIRECT);
      assert.strictEqual(back.searchParams.get('state'), state);
      const code = back.searchParams.get('code');
      assert.ok(code, `no code in ${back}`);
      const tokens = await appTester(App.authentication.oauth2Config.getAccessToken, {
        inputData: { serverUrl: sb.url, code, redirect_uri: REDIRECT, state },
      });
      assert.ok(tokens.access_token && tokens.refresh_token, `tokens: ${JSON.stringify(tokens)}`);
      // Zapier keeps the connection's fields beside the tokens.
      return { code, tokens: { ...tokens, serverUrl: sb.url } };
    };

    it('signs in, consents and exchanges the code for tokens (getAccessToken)', async () => {
      const first = await connect();
      assert.ok(await appTester(App.authentication.test, { authData: first.tokens }));
      // Codes are single-use: a second exchange is a clear error, and it revokes what the
      // code issued, so the app connects again for the tests that follow.
      await rejects(appTester(App.authentication.oauth2Config.getAccessToken, {
        inputData: { serverUrl: sb.url, code: first.code, redirect_uri: REDIRECT },
      }), /invalid_grant/);
      await rejects(appTester(App.authentication.test, { authData: first.tokens }), /RefreshAuthError/);
      authData = (await connect()).tokens;
    });

    it('the auth test is me-action and the connection label is the e-mail', async () => {
      const me = await appTester(App.authentication.test, { authData });
      assert.strictEqual(me.userId, user);
      assert.strictEqual(me.email, EMAIL);
      const label = await appTester(App.authentication.connectionLabel, { authData, inputData: me });
      assert.strictEqual(label, EMAIL);
    });

    it('a bad token asks Zapier to refresh (RefreshAuthError)', async () => {
      await rejects(appTester(App.authentication.test, { authData: { access_token: 'nope', serverUrl: sb.url } }), /RefreshAuthError/);
    });

    it('a URL that is not a Switchboard fails the connection with a clear message', async () => {
      // A server that answers 200 {} to everything.
      await rejects(appTester(App.authentication.test, { authData: { ...authData, serverUrl: rx.url } }),
        /is not a Switchboard: .* did not name the signed-in user\. Check the Switchboard URL/);
      // A web server without the API (404 page).
      await rejects(appTester(App.authentication.test, { authData: { ...authData, serverUrl: `${sb.url}/elsewhere` } }),
        /answered 404 with something other than Switchboard's JSON .*check that the Switchboard URL/);
      // Nothing listening.
      const closed = new Receiver();
      await closed.listen();
      await closed.close();
      await rejects(appTester(App.authentication.test, { authData: { ...authData, serverUrl: closed.url } }),
        new RegExp(`Could not reach a Switchboard at ${closed.url.replace(/[.]/g, '\\.')}`));
      // No URL, or not a URL.
      await rejects(appTester(App.authentication.oauth2Config.authorizeUrl, { inputData: { state: 's', redirect_uri: REDIRECT } }),
        /Switchboard URL is missing/);
      await rejects(appTester(App.authentication.test, { authData: { ...authData, serverUrl: 'ftp://example.com' } }),
        /not a Switchboard URL/);
    });
  });

  describe('dropdowns and dynamic fields', () => {
    it('lists the workspaces from me-action', async () => {
      const list = await appTester(App.triggers.workspace.operation.perform, { authData, inputData: {} });
      assert.deepStrictEqual(list.map((w) => w.name).sort(), ['Acme Dental', 'Beta Clinic']);
      assert.ok(list.find((w) => w.id === ws));
    });

    it("lists the workspace's phone numbers, keyed by phone", async () => {
      const list = await appTester(App.triggers.phone_number.operation.perform, bundle());
      assert.deepStrictEqual(list.map((n) => [n.phone, n.name]).sort(),
        [[NUMBER, `Main (${NUMBER})`], ['+14155550101', '+14155550101']]);
      assert.ok(list.every((n) => n.id.length === 26));
      // Without a workspace chosen yet, an empty list rather than an API error.
      assert.deepStrictEqual(await appTester(App.triggers.phone_number.operation.perform, { authData, inputData: {} }), []);
    });

    it("lists the workspace's groups", async () => {
      const list = await appTester(App.triggers.group.operation.perform, bundle());
      assert.deepStrictEqual(list.map((g) => [g.id, g.name]), [[groupId, 'VIP']]);
    });

    it('offers the custom contact properties as typed input fields', async () => {
      for (const key of ['create_contact', 'create_or_update_contact']) {
        const fields = await appTester(App.creates[key].operation.inputFields, bundle());
        const props = Object.fromEntries(fields.filter((f) => f.key.startsWith('property__')).map((f) => [f.key, f.type]));
        assert.deepStrictEqual(props, {
          property__plan: 'string', property__seats: 'number', property__vip: 'boolean', property__renewal: 'datetime',
        }, key);
      }
    });
  });

  describe('instant trigger: subscribe, deliver, unsubscribe', () => {
    let subscription;
    const hookPath = '/hooks/contact-created';

    it('subscribes with subscribe-webhook', async () => {
      subscription = await appTester(App.triggers.contact_created.operation.performSubscribe,
        bundle({}, { targetUrl: rx.url + hookPath }));
      assert.strictEqual(subscription.eventName, 'contact.created');
      assert.strictEqual(subscription.hookUrl, rx.url + hookPath);
      assert.strictEqual(subscription.workspaceId, ws);
      assert.match(subscription.secret, /^whsec_/);
    });

    it('creating a contact delivers contact.created, signed, and perform passes it on', async () => {
      const contact = await appTester(App.creates.create_contact.operation.perform, bundle({
        firstName: 'María', lastName: 'García', phone: '+12025550147', email: 'maria@example.com',
        property__plan: 'gold', property__seats: '3', property__vip: 'true', property__renewal: '2027-01-15T00:00:00-05:00',
      }));
      assert.deepStrictEqual(contact.properties, { plan: 'gold', seats: 3, vip: true, renewal: '2027-01-15' });

      const got = await rx.next((r) => r.path === hookPath && JSON.parse(r.body).id === contact.id);
      assert.strictEqual(got.method, 'POST');
      assert.strictEqual(got.headers['webhook-event'], 'contact.created');
      for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) assert.ok(got.headers[h], `no ${h} header`);
      const key = Buffer.from(subscription.secret.slice('whsec_'.length), 'base64');
      const want = crypto.createHmac('sha256', key)
        .update(`${got.headers['webhook-id']}.${got.headers['webhook-timestamp']}.${got.body}`).digest('base64');
      assert.ok(got.headers['webhook-signature'].split(' ').includes(`v1,${want}`), 'the Standard Webhooks signature checks out');

      // Zapier hands the delivery to perform with Http- prefixed headers.
      const rawRequest = {
        method: 'POST',
        content: got.body,
        headers: Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [`Http-${k.replace(/(^|-)\w/g, (s) => s.toUpperCase())}`, v])),
      };
      const hookBundle = bundle({}, { cleanedRequest: JSON.parse(got.body), rawRequest, subscribeData: subscription });
      const [event] = await appTester(App.triggers.contact_created.operation.perform, hookBundle);
      assert.strictEqual(event.id, contact.id);
      assert.strictEqual(event.phone, '+12025550147');
      assert.strictEqual(event.firstName, 'María');
      assert.deepStrictEqual(event.properties, contact.properties);

      // A body that was changed on the way is refused.
      const forged = { ...hookBundle, rawRequest: { ...rawRequest, content: got.body.replace('María', 'Mallory') } };
      await rejects(appTester(App.triggers.contact_created.operation.perform, forged), /signature does not match/);
    });

    it('unsubscribes with unsubscribe-webhook; nothing more is delivered', async () => {
      const out = await appTester(App.triggers.contact_created.operation.performUnsubscribe,
        bundle({}, { targetUrl: rx.url + hookPath, subscribeData: subscription }));
      assert.strictEqual(out.id, subscription.id);
      await rejects(appTester(App.triggers.contact_created.operation.performUnsubscribe,
        bundle({}, { subscribeData: subscription })), /\(404\)/);

      const delivered = () => rx.requests.filter((r) => r.path === hookPath).length;
      const before = delivered();
      await appTester(App.creates.create_contact.operation.perform, bundle({ firstName: 'Late', phone: '+12025550160' }));
      await sleep(1500);
      assert.strictEqual(delivered(), before, 'no delivery after the unsubscribe');
    });

    it('every trigger subscribes and unsubscribes', async () => {
      assert.deepStrictEqual(Object.keys(App.triggers).filter((k) => App.triggers[k].operation.type === 'hook').sort(),
        Object.keys(EVENTS).sort());
      // The server documents every event a trigger subscribes to (contact.deleted included),
      // and each subscribes for real.
      const served = Object.keys((await (await fetch(`${sb.url}/openapi.json`)).json()).webhooks);
      for (const [key, t] of Object.entries(App.triggers)) {
        if (t.operation.type !== 'hook') continue;
        assert.ok(served.includes(EVENTS[key]), `the server does not document ${EVENTS[key]}`);
        const sub = await appTester(t.operation.performSubscribe, bundle({}, { targetUrl: `${rx.url}/hooks/${key}` }));
        assert.strictEqual(sub.eventName, EVENTS[key], key);
        const out = await appTester(t.operation.performUnsubscribe, bundle({}, { subscribeData: sub }));
        assert.strictEqual(out.id, sub.id);
      }
    });
  });

  describe('creates', () => {
    let conversationId;

    it('send message', async () => {
      const m = await appTester(App.creates.send_message.operation.perform, bundle({ from: NUMBER, to: '+12025550147', text: 'Hi {{firstName|there}}' }));
      assert.strictEqual(m.to, '+12025550147');
      assert.strictEqual(m.from, NUMBER);
      assert.strictEqual(m.id.length, 26);
      conversationId = m.conversationId;
    });

    it('create conversation finds the same conversation', async () => {
      const c = await appTester(App.creates.create_conversation.operation.perform, bundle({ from: NUMBER, to: '+12025550147' }));
      assert.strictEqual(c.id, conversationId);
    });

    it('send group message', async () => {
      const m = await appTester(App.creates.send_group_message.operation.perform,
        bundle({ from: NUMBER, group: ['+12025550147', '+12025550148'], text: 'Team lunch at noon' }));
      assert.deepStrictEqual(m.group, ['+12025550147', '+12025550148']);
    });

    it('create comment', async () => {
      const c = await appTester(App.creates.create_comment.operation.perform,
        bundle({ from: NUMBER, to: '+12025550147', text: 'Calling her back', mentions: [user] }));
      assert.strictEqual(c.conversationId, conversationId);
      assert.strictEqual(c.text, 'Calling her back');
    });

    it('create or update contact changes only the fields given and merges properties', async () => {
      const c = await appTester(App.creates.create_or_update_contact.operation.perform,
        bundle({ phone: '+12025550147', lastName: 'García López', property__seats: 5 }));
      assert.strictEqual(c.firstName, 'María');
      assert.strictEqual(c.lastName, 'García López');
      assert.deepStrictEqual(c.properties, { plan: 'gold', seats: 5, vip: true, renewal: '2027-01-15' });
      const n = await appTester(App.creates.create_or_update_contact.operation.perform, bundle({ phone: '+12025550177', firstName: 'Nuno' }));
      assert.strictEqual(n.firstName, 'Nuno');
    });

    it('add contact to group', async () => {
      const r = await appTester(App.creates.add_contact_to_group.operation.perform, bundle({ phone: '+12025550147', group: 'VIP' }));
      assert.strictEqual(r.groupId, groupId);
      assert.ok(r.contactId && r.id);
      const made = await appTester(App.creates.add_contact_to_group.operation.perform, bundle({ phone: '+12025550177', group: 'Newsletter' }));
      assert.notStrictEqual(made.groupId, groupId);
    });

    it('create opt-out', async () => {
      const o = await appTester(App.creates.create_opt_out.operation.perform, bundle({ phone: '+12025550199' }));
      assert.strictEqual(o.phone, '+12025550199');
      await rejects(appTester(App.creates.send_message.operation.perform, bundle({ from: NUMBER, to: '+12025550199', text: 'hi' })),
        /\(422\): recipient \+12025550199 has opted out/);
    });

    it('send broadcast to numbers and groups', async () => {
      const b = await appTester(App.creates.send_broadcast.operation.perform,
        bundle({ from: NUMBER, recipients: ['+12025550150', '+12025550199'], groupIds: [groupId], text: 'Open Saturday', name: 'Weekend' }));
      assert.deepStrictEqual([...b.recipients].sort(), ['+12025550147', '+12025550150']);
      assert.strictEqual(b.totalOptedOut, 1);
      assert.ok(['sending', 'sent'].includes(b.status), b.status);
    });

    it('API errors become readable Zapier errors', async () => {
      await rejects(appTester(App.creates.create_contact.operation.perform, bundle({ firstName: 'Dup', phone: '+12025550147' })),
        /\(409\)/);
      await rejects(appTester(App.creates.send_message.operation.perform, bundle({ from: NUMBER, to: '202 555 0147', text: 'x' })),
        /\(400\): to: /);
      await rejects(appTester(App.creates.send_message.operation.perform, bundle({ from: NUMBER, to: '+12025550147' })),
        /\(400\): text: /);
      await rejects(appTester(App.creates.create_contact.operation.perform, { ...bundle({ firstName: 'X', phone: '+12025550111' }), inputData: { workspaceId: '01JD0000000000000000000000', firstName: 'X', phone: '+12025550111' } }),
        /\(404\)/);
    });
  });

  describe('search', () => {
    it('find contact by name, e-mail and formatted phone', async () => {
      for (const q of ['marí', 'maria@example.com', '+1 (202) 555-0147']) {
        const found = await appTester(App.searches.find_contact.operation.perform, bundle({ searchText: q }));
        assert.strictEqual(found[0] && found[0].phone, '+12025550147', q);
      }
      assert.deepStrictEqual(await appTester(App.searches.find_contact.operation.perform, bundle({ searchText: 'nobody-here' })), []);
    });
  });

  describe('get report', () => {
    it("answers today's figures, with the range as its id", async () => {
      const today = new Date().toISOString().slice(0, 10);
      const [r] = await appTester(App.searches.get_report.operation.perform, bundle({ from: `${today}T00:00:00Z`, to: today }));
      assert.strictEqual(r.id, `${today}..${today}`);
      assert.strictEqual(r.days.length, 1);
      assert.ok(r.messages.outbound >= 2, JSON.stringify(r.messages));
      assert.strictEqual(r.days[0].outbound, r.messages.outbound);
      assert.ok(r.members.some((m) => m.userId === user), JSON.stringify(r.members));
      await rejects(appTester(App.searches.get_report.operation.perform, bundle({ from: today, to: '2020-01-01' })),
        /\(400\): to: must be on or after from/);
    });
  });

  describe('find or create contact', () => {
    it('the search finds the exact phone only; nothing found, the create makes it', async () => {
      const soc = App.searchOrCreates.find_contact_by_phone;
      const search = App.searches[soc.search].operation.perform;
      const phone = '+12025550188';
      // +1202555018 is a prefix of it: a digits search sees it, the exact search must not.
      assert.deepStrictEqual(await appTester(search, bundle({ phone: '+1202555018' })), []);
      assert.deepStrictEqual(await appTester(search, bundle({ phone })), []);
      const made = await appTester(App.creates[soc.create].operation.perform, bundle({ phone, firstName: 'Found' }));
      const [found] = await appTester(search, bundle({ phone }));
      assert.strictEqual(found && found.id, made.id);
      assert.strictEqual(found.firstName, 'Found');
    });

    it('contact output fields include the workspace\'s custom properties', async () => {
      const out = App.searches.find_contact_by_phone.operation.outputFields;
      const dynamic = await appTester(out.find((f) => typeof f === 'function'), bundle());
      assert.deepStrictEqual(dynamic.map((f) => f.key).sort(),
        ['properties__plan', 'properties__renewal', 'properties__seats', 'properties__vip']);
    });
  });

  describe('performList samples', () => {
    const keys = ['conversationId', 'createdAt', 'from', 'id', 'media', 'status', 'text', 'to', 'workspaceId'];

    it('message triggers sample list-messages-action in the payload shape', async () => {
      // Play a contact texting in, through the sandbox carrier's inbound endpoint.
      const res = await fetch(`${sb.url}/carrier/sandbox/sms`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${authData.access_token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ From: '+12025550147', To: NUMBER, Body: 'Can I move to Friday?' }),
      });
      assert.strictEqual(res.status, 200, await res.text());

      const received = await appTester(App.triggers.message_received.operation.performList, bundle());
      assert.strictEqual(received[0].text, 'Can I move to Friday?');
      assert.strictEqual(received[0].status, 'received');
      assert.deepStrictEqual(received[0].media, []);
      assert.deepStrictEqual(Object.keys(received[0]).sort(), keys);

      // The sandbox reports delivery at once, but the dispatcher works in the background.
      let delivered = [];
      for (let i = 0; i < 100 && delivered.length === 0; i++) {
        if (i > 0) await sleep(100);
        delivered = await appTester(App.triggers.message_delivered.operation.performList, bundle());
      }
      assert.ok(delivered.length > 0 && delivered.every((m) => m.status === 'delivered'), JSON.stringify(delivered));
      const sent = await appTester(App.triggers.message_sent.operation.performList, bundle());
      assert.ok(sent.length > 0 && sent.every((m) => ['sent', 'delivered'].includes(m.status)), JSON.stringify(sent));
      assert.deepStrictEqual(Object.keys(sent[0]).sort(), keys);
      assert.deepStrictEqual(await appTester(App.triggers.message_failed.operation.performList, bundle()), []);
    });

    it('contact triggers sample find-contact-action', async () => {
      for (const key of ['contact_created', 'contact_updated']) {
        const list = await appTester(App.triggers[key].operation.performList, bundle());
        const maria = list.find((c) => c.phone === '+12025550147');
        assert.ok(maria, key);
        assert.deepStrictEqual(Object.keys(maria).sort(),
          ['createdAt', 'email', 'firstName', 'id', 'lastName', 'phone', 'properties', 'workspaceId']);
      }
    });

    it('events without a list action sample their static payload', async () => {
      for (const key of ['comment_created', 'contact_deleted', 'opt_out_created', 'call_received', 'conversation_assigned',
        'conversation_closed']) {
        const list = await appTester(App.triggers[key].operation.performList, bundle());
        assert.deepStrictEqual(list, [App.triggers[key].operation.sample]);
      }
    });
  });

  describe('token refresh (last: replaying a refresh token revokes the grant)', () => {
    it('rotates the pair; the old access and refresh tokens stop working', async () => {
      const old = authData;
      // Zapier merges the refreshed pair into the connection's authData (the URL stays).
      const fresh = { ...old, ...await appTester(App.authentication.oauth2Config.refreshAccessToken, { authData: old }) };
      assert.ok(fresh.access_token && fresh.refresh_token);
      assert.notStrictEqual(fresh.access_token, old.access_token);
      assert.notStrictEqual(fresh.refresh_token, old.refresh_token);
      const me = await appTester(App.authentication.test, { authData: fresh });
      assert.strictEqual(me.email, EMAIL);
      await rejects(appTester(App.authentication.test, { authData: old }), /RefreshAuthError/);

      await rejects(appTester(App.authentication.oauth2Config.refreshAccessToken, { authData: old }), /invalid_grant/);
      // A replayed refresh token revokes the whole grant, the new tokens included.
      await rejects(appTester(App.authentication.test, { authData: fresh }), /RefreshAuthError/);
    });
  });
});
