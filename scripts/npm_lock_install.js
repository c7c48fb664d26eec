#!/usr/bin/env node
// Installs exactly the packages a package-lock.json (lockfileVersion 2 or 3) pins into the
// node_modules/ beside it, without npm: each tarball is fetched from the registry, checked against
// the lock's integrity hash, and unpacked with tar. Install scripts are not run.
//
// Why not `npm ci`: Debian 12's own npm (9.2.0) cannot read the lock files npm 10/11 write (it
// rejects `npm:` aliases in overrides, and `npm ci` reports no lock file at all), and a fresh
// machine has only Debian's. Node.js 18 and tar are all this needs.
//
//   node scripts/npm_lock_install.js DIR      # DIR holds package-lock.json
// Registry: $npm_config_registry, else https://registry.npmjs.org. Exit 0 when DIR/node_modules
// holds every locked package (a stamp records the lock's SHA-256, so a second run does nothing).
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const https = require('https');
const http = require('http');
const path = require('path');
const { execFileSync } = require('child_process');

const dir = path.resolve(process.argv[2] || '.');
const lockPath = path.join(dir, 'package-lock.json');
const modulesDir = path.join(dir, 'node_modules');
const stampPath = path.join(modulesDir, '.lock-installed');
const registry = (process.env.npm_config_registry || 'https://registry.npmjs.org').replace(/\/+$/, '');

function fail(message) {
  console.error(`npm_lock_install: ${message}`);
  process.exit(1);
}

function sha256(buf) {
  return crypto.createHash('sha256').update(buf).digest('hex');
}

// Certificate errors that only say the chain is not trusted here (an intercepting proxy whose CA
// this machine does not have, as in a fresh chroot behind one). The tarballs do not need TLS to be
// trusted: each is checked against the sha512 of the lock file, the trust anchor, as apt checks
// packages fetched over plain http against signed indexes.
const UNTRUSTED_CHAIN = new Set(['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
                                 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_UNTRUSTED']);
let trustChain = true;

function download(url, redirectsLeft = 5) {
  return new Promise((resolve, reject) => {
    const get = url.startsWith('https:') ? https.get : http.get;
    const options = url.startsWith('https:') ? { rejectUnauthorized: trustChain } : {};
    get(url, options, (res) => {
      if ([301, 302, 303, 307, 308].includes(res.statusCode) && res.headers.location && redirectsLeft > 0) {
        res.resume();
        resolve(download(new URL(res.headers.location, url).toString(), redirectsLeft - 1));
        return;
      }
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${url}: HTTP ${res.statusCode}`));
        return;
      }
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    }).on('error', (e) => {
      if (trustChain && UNTRUSTED_CHAIN.has(e.code)) {
        trustChain = false;
        console.error(`npm_lock_install: ${url}: ${e.message}; continuing without trusting the TLS chain, ` +
                      'every tarball is still checked against the sha512 in the lock file');
        resolve(download(url, redirectsLeft));
        return;
      }
      reject(new Error(`${url}: ${e.message}`));
    });
  });
}

async function downloadWithRetries(url) {
  let lastError;
  for (let attempt = 0; attempt < 3; ++attempt) {
    try {
      return await download(url);
    } catch (e) {
      lastError = e;
      await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
    }
  }
  throw lastError;
}

// SRI strings ("sha512-<base64>", possibly several separated by spaces): any one must match.
function integrityMatches(buf, integrity) {
  return integrity.split(/\s+/).some((entry) => {
    const dash = entry.indexOf('-');
    const algo = entry.slice(0, dash);
    if (!['sha512', 'sha384', 'sha256'].includes(algo)) return false;  // sha1 is too weak to stand in for TLS
    return crypto.createHash(algo).update(buf).digest('base64') === entry.slice(dash + 1);
  });
}

// "node_modules/@scope/a/node_modules/b" -> "b"; an aliased entry carries its real name in `name`.
function packageName(key, entry) {
  if (entry.name) return entry.name;
  const at = key.lastIndexOf('node_modules/');
  return key.slice(at + 'node_modules/'.length);
}

function tarballUrl(name, entry) {
  if (entry.resolved && /^https?:/.test(entry.resolved)) return entry.resolved;
  const base = name.startsWith('@') ? name.split('/')[1] : name;
  return `${registry}/${name}/-/${base}-${entry.version}.tgz`;
}

// Optional packages for another OS or CPU are skipped, as npm skips them.
function platformMatches(entry) {
  const allowed = (list, value) => {
    if (!list || list.length === 0) return true;
    const denied = list.filter((x) => x.startsWith('!')).map((x) => x.slice(1));
    if (denied.includes(value)) return false;
    const wanted = list.filter((x) => !x.startsWith('!'));
    return wanted.length === 0 || wanted.includes(value);
  };
  return allowed(entry.os, process.platform) && allowed(entry.cpu, process.arch);
}

async function main() {
  if (!fs.existsSync(lockPath)) fail(`${lockPath} not found`);
  const lockText = fs.readFileSync(lockPath);
  const lock = JSON.parse(lockText);
  if (!lock.packages) fail(`${lockPath}: lockfileVersion ${lock.lockfileVersion} has no "packages" map (need 2 or 3)`);
  const lockHash = sha256(lockText);
  if (fs.existsSync(stampPath) && fs.readFileSync(stampPath, 'utf8').trim() === lockHash) return;

  const entries = Object.entries(lock.packages).filter(([key, e]) => key.startsWith('node_modules/') && !e.link);
  fs.rmSync(modulesDir, { recursive: true, force: true });
  let installed = 0;
  for (const [key, entry] of entries) {
    if (!platformMatches(entry)) {
      if (entry.optional) continue;
      fail(`${key} is not for ${process.platform}/${process.arch}`);
    }
    const name = packageName(key, entry);
    if (!entry.version || !entry.integrity) fail(`${lockPath}: ${key} has no version or integrity`);
    const url = tarballUrl(name, entry);
    const tarball = await downloadWithRetries(url).catch((e) => fail(e.message));
    if (!integrityMatches(tarball, entry.integrity)) fail(`${url}: integrity does not match the lock file`);
    const dest = path.join(dir, key);
    fs.mkdirSync(dest, { recursive: true });
    // Tarballs keep the package under one top folder ("package/", sometimes another name).
    execFileSync('tar', ['-xzf', '-', '--strip-components=1', '--no-same-owner', '-C', dest], { input: tarball });
    ++installed;
  }
  fs.mkdirSync(modulesDir, { recursive: true });
  fs.writeFileSync(stampPath, lockHash + '\n');
  console.error(`npm_lock_install: ${installed} packages into ${modulesDir}`);
}

main().catch((e) => fail(e.stack || String(e)));
