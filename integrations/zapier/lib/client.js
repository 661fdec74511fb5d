'use strict';

// The one place that knows where Switchboard is and how its integration API answers.

// The app serves every installation: the connection asks for the Switchboard URL first (the
// serverUrl authentication field), and every request, the OAuth ones included, goes there.
// During the OAuth flow the field is in bundle.inputData; afterwards Zapier keeps it in
// bundle.authData.

// normalizeServerUrl reads what a person typed: "text.example.com", "https://text.example.com/"
// and "https://example.com/switchboard" are all fine; a scheme other than http(s), a query or a
// fragment are not. It returns the URL without a trailing slash, or throws a sentence saying
// what to enter.
const normalizeServerUrl = (raw) => {
  let s = String(raw || '').trim();
  const hint = 'Enter the address of your Switchboard, the one you open to sign in, such as https://text.example.com.';
  if (!s) throw new Error(`The Switchboard URL is missing. ${hint}`);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) s = `https://${s}`;
  let u;
  try {
    u = new URL(s);
  } catch (e) {
    throw new Error(`"${raw}" is not a URL. ${hint}`);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || !u.hostname || u.search || u.hash || u.username || u.password) {
    throw new Error(`"${raw}" is not a Switchboard URL. ${hint}`);
  }
  return `${u.origin}${u.pathname}`.replace(/\/+$/, '');
};

// baseUrl is the connection's Switchboard URL: authData once connected, inputData while the
// OAuth flow runs.
const baseUrl = (bundle) => {
  const auth = (bundle && bundle.authData) || {};
  const input = (bundle && bundle.inputData) || {};
  return normalizeServerUrl(auth.serverUrl || input.serverUrl);
};

// The API path segments follow the server's -stage flag (default v1); the provider segment is
// the app's own, zapier.
const apiUrl = (bundle, action) =>
  `${baseUrl(bundle)}/${process.env.SWITCHBOARD_STAGE || 'v1'}/integrations/developer/zapier/${action}`;

// errorMessage turns the API's 4xx bodies into one readable sentence:
// {"error":"…"} or a validation array [{"field","message"}, …].
const errorMessage = (status, content, url) => {
  let body;
  try {
    body = JSON.parse(content);
  } catch (e) {
    // Switchboard answers every API and OAuth error in JSON: anything else is another server.
    const where = url ? ` at ${url}` : '';
    return `The server${where} answered ${status} with something other than Switchboard's JSON ` +
      `(${JSON.stringify(String(content || '').slice(0, 80))}): check that the Switchboard URL of this connection is right.`;
  }
  if (Array.isArray(body)) {
    const parts = body.map((e) => (e && e.field ? `${e.field}: ${e.message}` : JSON.stringify(e)));
    return `Switchboard refused the request (${status}): ${parts.join('; ')}`;
  }
  if (body && typeof body.error === 'string') {
    const desc = body.error_description ? ` (${body.error_description})` : '';
    return `Switchboard refused the request (${status}): ${body.error}${desc}`;
  }
  return `Switchboard answered ${status}: ${String(content).slice(0, 200)}`;
};

// codeFor names the error for Zapier's UI and for callers that want to branch on it.
const codeFor = (status) =>
  ({
    400: 'invalid_input',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    413: 'too_large',
    415: 'unsupported_media_type',
    422: 'refused',
  })[status] || `http_${status}`;

// throwForApiError is the app's afterResponse middleware. A 401 never reaches it: with
// autoRefresh, zapier-platform-core turns a 401 into a RefreshAuthError first, so Zapier
// refreshes the token and retries. 429 becomes a ThrottledError (Retry-After) the same way.
const throwForApiError = (response, z) => {
  if (response.status >= 400 && !response.request.skipThrowForStatus) {
    throw new z.errors.Error(errorMessage(response.status, response.content, response.request && response.request.url),
      codeFor(response.status), response.status);
  }
  return response;
};

// compact drops the fields Zapier sends empty: the API counts "" as absent anyway, and an
// empty list or null must not reach fields such as `group`.
const compact = (obj) => {
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) {
      const items = v.filter((x) => x !== undefined && x !== null && x !== '');
      if (items.length === 0) continue;
      out[k] = items;
      continue;
    }
    out[k] = v;
  }
  return out;
};

// call POSTs one integration action. Every request names the provider and, unless the action
// takes no workspace (subscribe/unsubscribe), the workspace as `id`.
const call = async (z, bundle, action, body = {}, { workspace = true } = {}) => {
  const payload = { developerProvider: 'zapier', ...body };
  if (workspace) {
    payload.id = body.id || bundle.inputData.workspaceId;
  }
  const response = await z.request({
    url: apiUrl(bundle, action),
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      Authorization: `Bearer ${bundle.authData.access_token}`,
    },
    body: compact(payload),
  });
  return response.data;
};

module.exports = { baseUrl, apiUrl, call, compact, errorMessage, normalizeServerUrl, throwForApiError };
