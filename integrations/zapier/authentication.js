'use strict';

// OAuth 2.0 against Switchboard's own provider: authorization code with client_secret_post,
// scope `integrations`, refresh tokens rotated on every use. One app serves every installation:
// the connection asks for the Switchboard URL first, and every request (authorize, token,
// refresh, the API) goes to it.
const { apiUrl, baseUrl, call, errorMessage } = require('./lib/client');

const SCOPE = 'integrations';

// The OAuth client registered on the installation. An installation's admin may give the
// connection its own client (Settings → OAuth clients, redirect URI Zapier's); otherwise the
// app's environment (CLIENT_ID, CLIENT_SECRET) names it.
const client = (bundle) => {
  const auth = bundle.authData || {};
  const input = bundle.inputData || {};
  return {
    id: input.clientId || auth.clientId || process.env.CLIENT_ID || '',
    secret: input.clientSecret || auth.clientSecret || process.env.CLIENT_SECRET || '',
  };
};

const authorizeUrl = (z, bundle) => {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: client(bundle).id,
    redirect_uri: bundle.inputData.redirect_uri,
    state: bundle.inputData.state,
    scope: SCOPE,
  });
  return `${baseUrl(bundle)}/oauth/authorize?${params}`;
};

// tokenRequest posts to the token endpoint and returns the token pair. Errors are RFC 6749
// §5.2 bodies ({"error":"invalid_grant",…}); they become Zapier errors that say what happened.
const tokenRequest = async (z, bundle, form) => {
  const url = `${baseUrl(bundle)}/oauth/token`;
  const { id, secret } = client(bundle);
  const response = await z.request({
    url,
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: { ...form, client_id: id, client_secret: secret },
    skipThrowForStatus: true,
  });
  if (response.status >= 400) {
    throw new z.errors.Error(errorMessage(response.status, response.content, url), 'oauth_error', response.status);
  }
  let data;
  try {
    data = JSON.parse(response.content);
  } catch (e) {
    data = null;
  }
  if (!data || !data.access_token) {
    throw new z.errors.Error(`${url} did not answer with tokens as a Switchboard does: check the Switchboard URL.`,
      'not_switchboard', response.status);
  }
  return { access_token: data.access_token, refresh_token: data.refresh_token };
};

const getAccessToken = (z, bundle) =>
  tokenRequest(z, bundle, {
    grant_type: 'authorization_code',
    code: bundle.inputData.code,
    redirect_uri: bundle.inputData.redirect_uri,
  });

// The refresh token is rotated: the answer carries a new one, which Zapier stores; presenting
// the old one again would revoke the whole grant.
const refreshAccessToken = (z, bundle) =>
  tokenRequest(z, bundle, { grant_type: 'refresh_token', refresh_token: bundle.authData.refresh_token });

// me-action proves the token works and names the user (the connection label). A server that is
// not a Switchboard fails with a sentence naming the URL to check, not a stack trace.
const test = async (z, bundle) => {
  const base = baseUrl(bundle);
  let me;
  try {
    me = await call(z, bundle, 'me-action', {}, { workspace: false });
  } catch (err) {
    // A network failure (node-fetch's FetchError: refused, unknown host, TLS) names the URL;
    // Zapier's own errors (RefreshAuthError, ThrottledError, the API's refusals) pass through.
    if (!err || err.name !== 'FetchError') throw err;
    throw new z.errors.Error(`Could not reach a Switchboard at ${base} (${err.message}): check the Switchboard URL.`,
      'not_switchboard', 0);
  }
  if (!me || typeof me !== 'object' || !me.userId || !me.email) {
    throw new z.errors.Error(`The server at ${base} is not a Switchboard: ${apiUrl(bundle, 'me-action')} did not name ` +
      'the signed-in user. Check the Switchboard URL.', 'not_switchboard', 0);
  }
  return me;
};

module.exports = {
  type: 'oauth2',
  oauth2Config: {
    authorizeUrl,
    getAccessToken,
    refreshAccessToken,
    scope: SCOPE,
    autoRefresh: true,
  },
  fields: [
    {
      key: 'serverUrl',
      label: 'Switchboard URL',
      required: true,
      type: 'string',
      helpText: 'The address of your Switchboard, the one you open to sign in, such as `https://text.example.com`.',
    },
    {
      key: 'clientId',
      label: 'OAuth Client ID',
      required: false,
      type: 'string',
      helpText: "Only if your Switchboard's admin registered an OAuth client for Zapier: its client id.",
    },
    {
      key: 'clientSecret',
      label: 'OAuth Client Secret',
      required: false,
      type: 'password',
      helpText: 'The secret of that OAuth client, shown once when it was created.',
    },
  ],
  test,
  connectionLabel: (z, bundle) => bundle.inputData.email || bundle.inputData.name,
};
