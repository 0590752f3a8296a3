// Preloaded (node --require) before the npm launcher by scripts/package-smoke, to drive the
// launcher as another platform would: it reports FSMCP_SMOKE_PLATFORM (e.g. `win32-x64`) as
// process.platform and process.arch, so the launcher picks that platform's package and binary
// name, and it starts whatever the launcher spawns through FSMCP_SMOKE_RUNNER (a JSON array:
// `["scripts/wine", "run"]`, `["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]`, or
// `["file", "-b"]` for a binary nothing here can run), the way a test harness would use an
// emulator. Everything else the launcher does is left as it is.
'use strict';

const childProcess = require('child_process');

const [platform, arch] = (process.env.FSMCP_SMOKE_PLATFORM || '').split('-');
if (!platform || !arch) {
  process.stderr.write('platform.js: set FSMCP_SMOKE_PLATFORM to <platform>-<arch>\n');
  process.exit(70);
}
Object.defineProperty(process, 'platform', { value: platform });
Object.defineProperty(process, 'arch', { value: arch });

const runner = JSON.parse(process.env.FSMCP_SMOKE_RUNNER || '[]');
if (runner.length > 0) {
  const spawn = childProcess.spawn;
  childProcess.spawn = (command, args, options) =>
    spawn(runner[0], [...runner.slice(1), command, ...args], options);
}
