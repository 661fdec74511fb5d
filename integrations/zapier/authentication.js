'use strict';

// OAuth 2.0 against Switchboard's own provider: authorization code with
// client_secret_post, scope `integrations`, refresh tokens rotated on every use.
const { baseUrl, call, errorMessage } = require('./lib/client');

const SCOPE = 'integrations';

const authorizeUrl = (z, bundle) => {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: process.env.CLIENT_ID || '',
    redirect_uri: bundle.inputData.redirect_uri,
    state: bundle.inputData.state,
    scope: SCOPE,
  });
  return `${baseUrl()}/oauth/authorize?${params}`;
};

// tokenRequest posts to the token endpoint and returns the token pair. Errors are RFC 6749
// §5.2 bodies ({"error":"invalid_grant",…}); they become Zapier errors that say what happened.
const tokenRequest = async (z, form) => {
  const response = await z.request({
    url: `${baseUrl()}/oauth/token`,
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: {
      ...form,
      client_id: process.env.CLIENT_ID,
      client_secret: process.env.CLIENT_SECRET,
    },
    skipThrowForStatus: true,
  });
  if (response.status >= 400) {
    throw new z.errors.Error(errorMessage(response.status, response.content), 'oauth_error', response.status);
  }
  const data = response.data || {};
  return { access_token: data.access_token, refresh_token: data.refresh_token };
};

const getAccessToken = (z, bundle) =>
  tokenRequest(z, {
    grant_type: 'authorization_code',
    code: bundle.inputData.code,
    redirect_uri: bundle.inputData.redirect_uri,
  });

// The refresh token is rotated: the answer carries a new one, which Zapier stores; presenting
// the old one again would revoke the whole grant.
const refreshAccessToken = (z, bundle) =>
  tokenRequest(z, { grant_type: 'refresh_token', refresh_token: bundle.authData.refresh_token });

// me-action proves the token works and names the user (the connection label).
const test = (z, bundle) => call(z, bundle, 'me-action', {}, { workspace: false });

module.exports = {
  type: 'oauth2',
  oauth2Config: {
    authorizeUrl,
    getAccessToken,
    refreshAccessToken,
    scope: SCOPE,
    autoRefresh: true,
  },
  fields: [],
  test,
  connectionLabel: (z, bundle) => bundle.inputData.email || bundle.inputData.name,
};
