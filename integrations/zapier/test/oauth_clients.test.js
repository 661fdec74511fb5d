'use strict';

// Real OAuth clients no one here wrote, configured from the server's RFC 8414 metadata:
// simple-oauth2 runs the authorization-code flow against the real binary, and its revokeAll()
// (which parses every answer as JSON) succeeds.
const assert = require('assert');
const { AuthorizationCode } = require('simple-oauth2');
const { Switchboard, goMissing } = require('./switchboard');

const PASSWORD = 'correct horse battery';
const EMAIL = 'olga@example.com';
const REDIRECT = 'http://127.0.0.1/oauth-callback';

describe('OAuth discovery and simple-oauth2 against the real binary', function () {
  this.timeout(180000);
  let sb, clientId, clientSecret, ws;

  before(async function () {
    this.timeout(600000);
    const reason = goMissing();
    if (reason) {
      console.log(`    skipping the OAuth client tests: ${reason}`);
      this.skip();
    }
    sb = new Switchboard();
    sb.build();
    const [user] = sb.admin('create-user', '--email', EMAIL, '--name', 'Olga', '--password', PASSWORD);
    [ws] = sb.admin('create-workspace', '--name', 'Acme');
    sb.admin('add-member', '--workspace', ws, '--user', user);
    [clientId, clientSecret] = sb.admin('create-oauth-client', '--name', 'simple-oauth2', '--redirect-uri', REDIRECT);
    await sb.start();
  });

  after(async () => {
    if (sb) await sb.stop();
  });

  const me = async (token) => {
    const res = await fetch(`${sb.url}/v1/integrations/developer/zapier/me-action`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ developerProvider: 'zapier' }),
    });
    return { status: res.status, body: await res.json() };
  };

  it('configures itself from the metadata, runs the flow, and revokeAll() succeeds', async () => {
    const res = await fetch(`${sb.url}/.well-known/oauth-authorization-server`);
    assert.strictEqual(res.status, 200);
    const md = await res.json();
    assert.strictEqual(md.issuer, sb.url);
    assert.deepStrictEqual(md.code_challenge_methods_supported, ['S256']);
    const path = (u) => new URL(u).pathname;
    const oauth = new AuthorizationCode({
      client: { id: clientId, secret: clientSecret },
      auth: {
        tokenHost: md.issuer,
        tokenPath: path(md.token_endpoint),
        authorizeHost: md.issuer,
        authorizePath: path(md.authorization_endpoint),
        revokePath: path(md.revocation_endpoint),
      },
    });
    const authorizeUrl = oauth.authorizeURL({ redirect_uri: REDIRECT, scope: md.scopes_supported[0], state: 'st-1' });
    const back = await sb.authorize(authorizeUrl, EMAIL, PASSWORD);
    assert.strictEqual(back.searchParams.get('state'), 'st-1');
    const token = await oauth.getToken({ code: back.searchParams.get('code'), redirect_uri: REDIRECT });
    assert.ok(token.token.access_token && token.token.refresh_token);
    assert.strictEqual((await me(token.token.access_token)).body.email, EMAIL);

    const refreshed = await token.refresh();
    assert.notStrictEqual(refreshed.token.access_token, token.token.access_token);

    await refreshed.revokeAll(); // throws if an answer is not JSON
    const after = await me(refreshed.token.access_token);
    assert.strictEqual(after.status, 401);
    await assert.rejects(refreshed.refresh(), (err) => err.output && err.output.statusCode === 400);
  });
});
