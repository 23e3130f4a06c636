// `npm run test:shake`: one shaking run of issue 18 — `npm test` in a fresh clone of HEAD, with a read-only copy of
// ../shared beside it, CI=true and no standard input, while a second process keeps a core busy (a loop of
// `npm run bench:sim -- --only simulate`), optionally in another time zone (--tz Pacific/Chatham). Prints the commit,
// the times, the 1-minute load before and after, and npm test's own closing line; exits with npm test's code. The
// loop is stopped (its whole process group) however the run ends.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const { values } = parseArgs({ options: { tz: { type: 'string' }, 'no-load': { type: 'boolean' }, keep: { type: 'boolean' } } });

const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ')[0] ?? '?';
const utc = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

function run(cmd: string, args: string[], cwd: string): void {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    process.stderr.write(`test:shake: ${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})\n`);
    process.exit(2);
  }
}

const work = mkdtempSync(join(tmpdir(), 'kmaint-shake-'));
const project = join(work, 'project');
run('git', ['clone', '-q', REPO, project], REPO);
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: project, encoding: 'utf8' }).stdout.trim();
if (existsSync(join(REPO, '..', 'shared'))) {
  cpSync(join(REPO, '..', 'shared'), join(work, 'shared'), { recursive: true });
  run('chmod', ['-R', 'a-w', join(work, 'shared')], work);
}
process.stdout.write(`test:shake: ${commit} in ${project}${values.tz ? `, TZ=${values.tz}` : ''}${values['no-load'] ? '' : ', bench:sim looping beside it'}\n`);
run('npm', ['ci', '--no-audit', '--no-fund'], project);

const stop = join(work, 'stop');
const loop = values['no-load']
  ? undefined
  : spawn('bash', ['-c', `while [ ! -e '${stop}' ]; do npm run -s bench:sim -- --only simulate >/dev/null 2>&1; done`], { cwd: project, detached: true, stdio: 'ignore' });
const endLoop = (): void => {
  if (loop?.pid === undefined) return;
  try {
    process.kill(-loop.pid, 'SIGTERM');
  } catch {
    // Already gone: nothing of it to stop.
  }
};
process.on('exit', endLoop);

const started = Date.now();
const loadBefore = load();
const log = join(work, 'npm-test.log');
const out = createWriteStream(log);
const env = { ...process.env, CI: 'true', ...(values.tz ? { TZ: values.tz } : {}) };
const test = spawn('npm', ['test'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
for (const stream of [test.stdout, test.stderr]) {
  stream.on('data', (d: Buffer) => {
    process.stdout.write(d);
    out.write(d);
  });
}
const code = await new Promise<number>((done) => test.on('close', (c) => done(c ?? 1)));
endLoop();
out.end();
const ended = Date.now();
const closing = readFileSync(log, 'utf8')
  .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
  .split('\n')
  .filter((l) => /^== npm test: |^\[(unit|sim|testbed)\] project /.test(l));
process.stdout.write(
  [
    `test:shake: ${commit}${values.tz ? ` TZ=${values.tz}` : ''}, ${utc(started)}–${utc(ended).slice(11)} UTC, 1-min load ${loadBefore} -> ${load()}, npm test ${Math.round((ended - started) / 1000)} s, exit ${code}`,
    ...closing.map((l) => `  ${l}`),
    values.keep ? `  kept: ${work}` : '',
  ]
    .filter(Boolean)
    .join('\n') + '\n',
);
if (!values.keep) {
  run('chmod', ['-R', 'u+w', work], tmpdir());
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = code;
