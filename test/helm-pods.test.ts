// kmaint released and installed as a platform team would (issue 32) finishes a maintenance by itself on the testbed
// (issue 23 point 3): kmaint's image (npm run image:build, image/out/layout) is pushed by tag to a local OCI registry on
// loopback (image/registry.ts), the chart packaged with the image's version and pushed there too, and installed with
// `helm install oci://127.0.0.1:PORT/charts/kmaint`. The simulated kubelet pulls the image the CronJobs' pods name from
// that registry and runs their containers chrooted into its root filesystem (sim/kubelet/host-process.ts): the image's
// own node and bundle, each pod with its ServiceAccount's pod-bound token at the in-cluster path. The test creates the
// seed request and deletes it, and starts no kmaint process. The chart's schedule (every minute) is kept; the CronJobs
// are installed suspended, and each is resumed with the current minute's tick due when its pass has work (the scheduler
// first, the drainer once the request is admitted, cleanup once it is deleted), which saves the waits for ticks only.
// A run takes three ticks (admit, drain, cleanup).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_JSON, LAYOUT_DIR, gitDirty, gitRevision, type ImageFacts } from '../image/build.ts';
import { pushImage, startRegistry, type LocalRegistry } from '../image/registry.ts';
import { imageToolBinary, imageToolIsCurrent } from '../image/tool.ts';
import { helmBinary, helmIsCurrent, runHelm, type HelmResult } from '../testbed/helm.ts';
import { kubectl, testbed, waitFor } from './support/cluster.ts';
import { SEED, cronJobPods, inClusterPodsUnsupported, maintainSeedByCronJobs, podLog } from './support/in-cluster-pods.ts';
import { admin, deleteNM, generalNodes, getNM } from './support/kmaint.ts';

const NS = 'kmaint-pods-helm';
const RELEASE = 'kmp';
const NAME = 'kmp-kmaint';

/**
 * Preloaded into every node process of kmaint's pods (NODE_OPTIONS through the chart's operator.env): one line on stderr
 * saying which node runs which script on which Debian, read from inside the container.
 */
const PROBE = [
  "import{readFileSync}from'node:fs';",
  "console.error(JSON.stringify({image:{execPath:process.execPath,node:process.version,script:process.argv[1],debian:readFileSync('/etc/debian_version','utf8').trim(),uid:process.getuid()}}));",
].join('');
const NODE_OPTIONS = `--import=data:text/javascript;base64,${Buffer.from(PROBE).toString('base64')}`;

function helm(args: string[]): Promise<HelmResult> {
  return runHelm(['--kubeconfig', testbed().kubeconfigPath, ...args], { home: join(testbed().dir, 'helm-home') });
}

const unsupported = !helmIsCurrent()
  ? `the test needs helm (${helmBinary()}): npm run testbed:build builds it`
  : !existsSync(IMAGE_JSON) || !imageToolIsCurrent()
    ? `the test needs kmaint's image (${LAYOUT_DIR}) and the image tool: npm run image:build builds them`
    : inClusterPodsUnsupported();
if (unsupported !== undefined) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[test/helm-pods] NOT RUN: ${unsupported}; counted as skipped\n`);
}

describe.skipIf(unsupported !== undefined)('kmaint\'s image and chart from a loopback OCI registry run a maintenance by themselves on the testbed (release kmp in namespace kmaint-pods-helm)', () => {
  let registry: LocalRegistry | undefined;
  let scratch = '';
  const image = JSON.parse(existsSync(IMAGE_JSON) ? readFileSync(IMAGE_JSON, 'utf8') : '{}') as ImageFacts;

  beforeAll(async () => {
    // CI builds the image from the checkout first (.ci/run); a layout left from another commit is tested as it is, and said.
    if (image.revision !== gitRevision() || image.dirty || gitDirty()) {
      process.stderr.write(`[test/helm-pods] WARNING: the image in ${LAYOUT_DIR} was built from ${image.revision}${image.dirty ? ' with changes' : ''}, the checkout is ${gitRevision()}${gitDirty() ? ' with changes' : ''}: this run tests that image; npm run image:build builds the checkout's\n`);
    }
    scratch = mkdtempSync(join(tmpdir(), 'kmaint-release-'));
    registry = await startRegistry(imageToolBinary(), scratch);
  });

  afterAll(async () => {
    await deleteNM(SEED.namespace, SEED.name);
    await waitFor(`${SEED.namespace}/${SEED.name} gone`, async () => ((await getNM(SEED.namespace, SEED.name)) === undefined ? true : undefined), 150_000, 1000).catch(() => undefined);
    await helm(['uninstall', RELEASE, '-n', NS, '--ignore-not-found', '--wait']);
    await kubectl(['delete', 'jobs', '-n', NS, '--all', '--ignore-not-found', '--cascade=foreground', '--wait=true']);
    await kubectl(['delete', 'namespace', NS, '--ignore-not-found', '--wait=true']);
    await registry?.stop();
    if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
  });

  it(
    "the image pushed by tag and the chart pushed and installed from oci://; the seed request reaches Ready and is released after its deletion, driven only by the chart's CronJobs, whose pods run the image's own node and bundle; the audit log shows their pods' tokens",
    async () => {
      const host = registry?.host ?? '';
      const version = image.tag;
      // The image's Node.js is a supported LTS (22 or later), and the registry holds what was built.
      expect(Number(/^v(\d+)\./.exec(image.rootfs.node)?.[1])).toBeGreaterThanOrEqual(22);
      expect(pushImage(imageToolBinary(), LAYOUT_DIR, version, `${host}/kmaint:${version}`)).toBe(image.digest);

      // The chart stamped with the version it ships (appVersion: the image tag), as docs/release.md cuts a release.
      const packaged = await helm(['package', 'charts/kmaint', '--version', version, '--app-version', version, '-d', scratch]);
      expect([packaged.code, packaged.stdout.trim(), packaged.stderr]).toEqual([0, `Successfully packaged chart and saved it to: ${join(scratch, `kmaint-${version}.tgz`)}`, '']);
      const pushed = await helm(['push', join(scratch, `kmaint-${version}.tgz`), `oci://${host}/charts`, '--plain-http']);
      expect([pushed.code, pushed.stderr.split('\n')[0]]).toEqual([0, `Pushed: ${host}/charts/kmaint:${version}`]);

      const installed = await helm([
        'install', RELEASE, `oci://${host}/charts/kmaint`, '--version', version, '--plain-http', '-n', NS, '--create-namespace',
        '--set', 'cronJobs.suspend=true', '--set', `operator.image.repository=${host}`,
        '--set-json', `operator.env=${JSON.stringify([{ name: 'NODE_OPTIONS', value: NODE_OPTIONS }])}`,
      ]);
      expect([installed.code, installed.stdout.split('\n').find((l) => l.startsWith('kmaint '))]).toEqual([0, `kmaint ${version} is installed in namespace ${NS} as release ${RELEASE}:`]);
      const cronImages = await kubectl(['get', 'cronjobs', '-n', NS, '-o', 'jsonpath={.items[*].spec.jobTemplate.spec.template.spec.containers[0].image}']);
      expect(new Set(cronImages.stdout.split(' '))).toEqual(new Set([`${host}/kmaint:${version}`]));

      // The image's default command (Entrypoint kmaint, Cmd --help) from a bare pod; it also pulls the image before the
      // first tick, as an image pre-puller does, so the passes' pods start as fast as host processes of the bundle do.
      await admin().core.createNamespacedPod({ namespace: NS, body: { metadata: { name: 'pre-pull' }, spec: { restartPolicy: 'Never', automountServiceAccountToken: false, containers: [{ name: 'kmaint', image: `${host}/kmaint:${version}` }] } } });
      const prePulled = await waitFor('pod pre-pull Succeeded', async () => {
        const p = await admin().core.readNamespacedPod({ namespace: NS, name: 'pre-pull' });
        return p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed' ? p : undefined;
      }, 60_000, 500);
      expect([prePulled.status?.phase, podLog(prePulled).split('\n')[0]]).toEqual(['Succeeded', 'Usage: kmaint [options] [command]']);

      await maintainSeedByCronJobs({ namespace: NS, cronJobPrefix: NAME, user: `system:serviceaccount:${NS}:${NAME}`, serviceAccount: NAME }, (await generalNodes())[1] ?? '');

      // Every pod that ran said it was the image's node on the image's Debian, running the image's bundle as its user.
      const expected = JSON.stringify({ image: { execPath: image.rootfs.nodePath, node: image.rootfs.node, script: '/app/kmaint.mjs', debian: image.rootfs.debian, uid: 1000 } });
      const ran = (await cronJobPods(NS)).filter((p) => p.status?.phase === 'Succeeded');
      expect(ran.length).toBeGreaterThan(0);
      for (const pod of ran) expect([pod.metadata?.name, podLog(pod).split('\n').filter((l) => l.startsWith('{"image":'))]).toEqual([pod.metadata?.name, [expected]]);
      // Unpacked by the kubelet from the registry, by the digest the tag named.
      expect(existsSync(join(testbed().dir, 'images', image.digest.replace(':', '-'), 'rootfs', 'app', 'kmaint.mjs'))).toBe(true);
    },
    480_000,
  );
});
