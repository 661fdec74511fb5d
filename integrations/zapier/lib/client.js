'use strict';

// The one place that knows where Switchboard is and how its integration API answers.

// baseUrl is read on every call, not at load time, so tests (and `zapier env:set`) can point
// the app at any installation, a local one included.
const baseUrl = () =>
  (process.env.SWITCHBOARD_URL || 'http://localhost:8080').replace(/\/+$/, '');

// The API path segments follow the server's -stage and -provider flags (defaults v1, zapier).
const apiUrl = (action) =>
  `${baseUrl()}/${process.env.SWITCHBOARD_STAGE || 'v1'}/integrations/developer/zapier/${action}`;

// errorMessage turns the API's 4xx bodies into one readable sentence:
// {"error":"…"} or a validation array [{"field","message"}, …].
const errorMessage = (status, content) => {
  let body;
  try {
    body = JSON.parse(content);
  } catch (e) {
    return `Switchboard answered ${status}: ${String(content || '').slice(0, 200)}`;
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
    throw new z.errors.Error(errorMessage(response.status, response.content), codeFor(response.status), response.status);
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
    url: apiUrl(action),
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

module.exports = { baseUrl, apiUrl, call, compact, errorMessage, throwForApiError };
