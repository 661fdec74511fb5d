'use strict';

// Test harness: builds the real switchboard binary, seeds a data directory with its admin
// commands, runs `switchboard serve` on a free port, signs in and consents over HTTP, and
// runs a local webhook receiver.
const { execFileSync, spawn, spawnSync } = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');

const repoRoot = path.resolve(__dirname, '..', '..', '..');

// goMissing returns a reason to skip when Go is not installed; under CI it throws instead,
// so CI can never pass without running these tests.
const goMissing = () => {
  const r = spawnSync('go', ['version'], { stdio: 'ignore' });
  if (!r.error && r.status === 0) return null;
  const reason = 'go is not installed: the Zapier app tests need it to build the switchboard binary';
  if (process.env.CI === 'true') throw new Error(`${reason} (CI=true, so this fails instead of skipping)`);
  return reason;
};

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Switchboard {
  constructor() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-zapier-'));
    this.data = path.join(this.dir, 'data');
    this.binary = path.join(this.dir, 'switchboard');
    this.log = '';
  }

  build() {
    execFileSync('go', ['build', '-o', this.binary, '.'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  }

  // admin runs one admin command and returns its stdout lines (ids, tokens, secrets).
  admin(...args) {
    const [cmd, ...rest] = args;
    // stderr is captured, not shown: it carries notes such as "the secret is shown only now",
    // and execFileSync puts it into the error when the command fails.
    const out = execFileSync(this.binary, ['admin', cmd, `-data=${this.data}`, ...rest],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return out.trim().split('\n');
  }

  async start() {
    this.port = await freePort();
    this.url = `http://127.0.0.1:${this.port}`;
    this.proc = spawn(this.binary, ['serve', '-addr', `127.0.0.1:${this.port}`, '-data', this.data,
      '-base-url', this.url, '-hook-allow-cidrs', '127.0.0.0/8'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b) => { this.log = (this.log + b.toString()).slice(-20000); };
    this.proc.stdout.on('data', keep);
    this.proc.stderr.on('data', keep);
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline) {
      if (this.proc.exitCode !== null) throw new Error(`serve exited early (${this.proc.exitCode}):\n${this.log}`);
      try {
        const res = await fetch(`${this.url}/healthz`);
        if (res.ok) return;
      } catch (e) { /* not listening yet */ }
      await sleep(50);
    }
    throw new Error(`serve did not answer /healthz:\n${this.log}`);
  }

  async stop() {
    if (this.proc && this.proc.exitCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  // authorize plays the user's browser from the app's authorizeUrl: sign in through the
  // login form, approve the consent form, and return the redirect back to the client.
  async authorize(authorizeUrl, email, password) {
    const jar = new Map();
    const send = async (url, form) => {
      const headers = { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') };
      let body;
      if (form) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(form).toString();
      }
      const res = await fetch(new URL(url, this.url), { method: form ? 'POST' : 'GET', headers, body, redirect: 'manual' });
      // getSetCookie keeps several cookies apart; very old Node 18 builds lack it.
      const cookies = res.headers.getSetCookie ? res.headers.getSetCookie() : [res.headers.get('set-cookie')].filter(Boolean);
      for (const c of cookies) {
        const [pair] = c.split(';');
        const i = pair.indexOf('=');
        jar.set(pair.slice(0, i), pair.slice(i + 1));
      }
      return { res, text: await res.text() };
    };
    let { res } = await send(authorizeUrl);
    if (res.status !== 303) throw new Error(`authorize without a session: expected 303 to sign-in, got ${res.status}`);
    const login = new URL(res.headers.get('location'), this.url);
    if (login.pathname !== '/oauth/login') throw new Error(`expected the sign-in page, got ${login}`);
    ({ res } = await send('/oauth/login', { email, password, next: login.searchParams.get('next') }));
    if (res.status !== 303) throw new Error(`sign-in: expected 303 back to authorize, got ${res.status}`);
    const consent = await send(res.headers.get('location'));
    if (consent.res.status !== 200 || !consent.text.includes('data-testid="consent"')) {
      throw new Error(`expected the consent page, got ${consent.res.status}: ${consent.text.slice(0, 500)}`);
    }
    const form = { decision: 'allow' };
    for (const m of consent.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
      form[unescapeHtml(m[1])] = unescapeHtml(m[2]);
    }
    ({ res } = await send('/oauth/authorize', form));
    if (res.status !== 303) throw new Error(`consent: expected 303 to the client, got ${res.status}`);
    return new URL(res.headers.get('location'));
  }
}

const unescapeHtml = (s) =>
  s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCharCode(parseInt(n, 16)))
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

// Receiver is a local webhook endpoint that records every request it gets.
class Receiver {
  constructor() {
    this.requests = [];
    this.waiters = [];
    this.server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const r = { method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(r);
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end('{}');
        this.waiters = this.waiters.filter((w) => !w(r));
      });
    });
  }

  listen() {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => {
      this.url = `http://127.0.0.1:${this.server.address().port}`;
      resolve();
    }));
  }

  // next resolves with the first request (recorded or future) that match accepts.
  next(match, timeoutMs = 10000) {
    const seen = this.requests.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching webhook delivery within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push((r) => {
        if (!match(r)) return false;
        clearTimeout(timer);
        resolve(r);
        return true;
      });
    });
  }

  close() {
    return new Promise((r) => this.server.close(r));
  }
}

module.exports = { Switchboard, Receiver, goMissing, sleep };
