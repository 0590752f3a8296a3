#!/usr/bin/env node
// Runs the fsmcp binary shipped in the platform package npm installed beside this one
// (@fsmcp/<platform>-<arch>, an optional dependency whose os/cpu fields match one machine).
//
// Usage: fsmcp [fsmcp arguments…]   (everything is passed to the binary unchanged)
//
// stdin and stdout are the MCP channel, so they are inherited, never read or written here;
// SIGINT, SIGTERM and SIGHUP are passed on; the binary's exit code (or the signal that ended
// it) becomes this process's.
'use strict';

const { spawn } = require('child_process');
const os = require('os');
const path = require('path');

// Platform keys (process.platform-process.arch) with a published package. Add one here and
// in optionalDependencies when a platform package is added (see packaging/README.md).
const PLATFORMS = new Set(['darwin-arm64', 'darwin-x64', 'linux-arm64', 'linux-x64', 'win32-x64']);
const FROM_SOURCE =
  'build it from source instead (Rust 1.90+ and a C compiler): ' +
  'cargo install --locked --git https://github.com/fsmcp/fsmcp fsmcp';

function fail(message) {
  process.stderr.write(`fsmcp: ${message}\n`);
  process.exit(1);
}

const key = `${process.platform}-${process.arch}`;
const pkg = `@fsmcp/${key}`;

let binary;
try {
  // The package.json is always resolvable (platform packages declare no "exports").
  const name = process.platform === 'win32' ? 'fsmcp.exe' : 'fsmcp';
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', name);
} catch {
  if (PLATFORMS.has(key)) {
    fail(
      `the package ${pkg} holding the binary for ${key} is not installed ` +
        '(an install that omits optional dependencies skips it); reinstall fsmcp with ' +
        `optional dependencies, or ${FROM_SOURCE}`,
    );
  }
  fail(`no prebuilt binary for ${key} on npm; ${FROM_SOURCE}`);
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  // The child may already be gone; its exit is handled below.
  try {
    child.kill(signal);
  } catch {}
};
for (const signal of FORWARDED) process.on(signal, forward);

child.on('error', (error) => {
  // ENOENT: the file is gone, or (on Linux) it exists and its loader does not (a glibc
  // build on musl).
  const missing = process.platform === 'linux' ? 'is missing or needs glibc, which this system lacks' : 'is missing';
  const hints = {
    ENOENT: `the binary ${missing}; reinstall fsmcp, or ${FROM_SOURCE}`,
    EACCES: 'the binary is not executable; reinstall fsmcp',
  };
  const hint = hints[error.code] || FROM_SOURCE;
  fail(`could not start the binary from ${pkg} (${error.code || error.message}): ${hint}`);
});

child.on('exit', (code, signal) => {
  if (signal) {
    // End the same way, so whoever started us sees the signal, not an exit code.
    for (const s of FORWARDED) process.removeListener(s, forward);
    process.kill(process.pid, signal);
    // A signal Node ignores (e.g. SIGPIPE) would not end us: fall back to the shell's 128+n.
    setTimeout(() => process.exit(128 + (os.constants.signals[signal] || 0)), 500);
    return;
  }
  process.exit(code);
});
