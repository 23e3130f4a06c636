// Protobuf bodies as kubectl sends them, decoded into the JSON kubectl would have sent: exact objects for bodies
// built field by field, kubectl's own `--dry-run=client -o json` as the judge for the bodies it really sends, and the
// refusals that name what cannot be decoded.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlBinary } from '../test-support.ts';
import { decodeKubernetesProtobuf } from './decode.ts';
import { UndecodableProtobufError, WireFormatError } from './errors.ts';

const run = promisify(execFile);

/** A field for the test encoder: numbers and booleans as varints, strings and bytes length-delimited, arrays nested. */
type Field = [number, number | bigint | boolean | string | Uint8Array | Field[]];

function varint(value: bigint): number[] {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  do {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? low | 0x80 : low);
  } while (v > 0n);
  return out;
}

function encode(fields: readonly Field[]): Uint8Array {
  const out: number[] = [];
  for (const [number, value] of fields) {
    if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
      out.push(...varint(BigInt(number << 3)), ...varint(typeof value === 'boolean' ? (value ? 1n : 0n) : BigInt(value)));
      continue;
    }
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value instanceof Uint8Array ? value : encode(value);
    out.push(...varint(BigInt((number << 3) | 2)), ...varint(BigInt(bytes.length)), ...bytes);
  }
  return Uint8Array.from(out);
}

/** The envelope: `k8s\0`, then runtime.Unknown { typeMeta { apiVersion, kind }, raw, contentEncoding, contentType }. */
function envelope(apiVersion: string, kind: string, raw: readonly Field[], contentEncoding = ''): Buffer {
  const unknown = encode([[1, [[1, apiVersion], [2, kind]]], [2, encode(raw)], [3, contentEncoding], [4, '']]);
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

/** ObjectMeta as gogo writes it: every string present even when empty, labels as map entries. */
function meta(name: string, labels: Record<string, string> = {}, namespace = ''): Field[] {
  return [[1, name], [2, ''], [3, namespace], [4, ''], [5, ''], [6, ''], [7, 0], [8, []], ...Object.entries(labels).map(([k, v]): Field => [11, [[1, k], [2, v]]])];
}

/** What decoding throws: its class and exact message. */
function thrown(body: Buffer): { type: string; message: string } | undefined {
  try {
    decodeKubernetesProtobuf(body);
    return undefined;
  } catch (err) {
    return { type: (err as Error).constructor.name, message: (err as Error).message };
  }
}

describe('decodeKubernetesProtobuf: bodies built field by field', () => {
  it.each<[string, Buffer, Record<string, unknown>]>([
    [
      'DeleteOptions: a pointer set to zero is kept, preconditions and dryRun as sent',
      envelope('v1', 'DeleteOptions', [[1, 0], [2, [[1, 'uid-1']]], [4, 'Foreground'], [5, 'All']]),
      { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: 'uid-1' }, propagationPolicy: 'Foreground', dryRun: ['All'] },
    ],
    [
      'DeleteOptions: a negative int64 (ten-byte varint) keeps its sign',
      envelope('v1', 'DeleteOptions', [[1, -1]]),
      { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: -1 },
    ],
    [
      'Eviction: metadata and deleteOptions',
      envelope('policy/v1', 'Eviction', [[1, meta('web-1', {}, 'shop')], [2, [[1, 30]]]]),
      { kind: 'Eviction', apiVersion: 'policy/v1', metadata: { name: 'web-1', namespace: 'shop' }, deleteOptions: { gracePeriodSeconds: 30 } },
    ],
    [
      'ConfigMap: data in wire order, binaryData as base64, immutable, a set creationTimestamp in RFC 3339',
      envelope('v1', 'ConfigMap', [
        [1, [[1, 'cm'], [8, [[1, 1772359200]]], [12, [[1, 'note'], [2, 'x: y']]]]],
        [2, [[1, 'b'], [2, 'two']]],
        [2, [[1, 'a'], [2, '1']]],
        [3, [[1, 'blob'], [2, Uint8Array.from([0, 255, 1])]]],
        [4, true],
      ]),
      { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm', creationTimestamp: '2026-03-01T10:00:00Z', annotations: { note: 'x: y' } }, immutable: true, data: { b: 'two', a: '1' }, binaryData: { blob: 'AP8B' } },
    ],
    [
      'Pod: containers with command, args, ports, env, quantities, privileged=false kept; zero scalars left out',
      envelope('v1', 'Pod', [
        [1, meta('p', { run: 'p' })],
        [
          2,
          [
            [2, [[1, 'c'], [2, 'img'], [3, 'sh'], [4, '-c'], [4, 'sleep 1'], [5, ''], [6, [[1, ''], [2, 0], [3, 8080], [4, 'TCP'], [5, '']]], [7, [[1, 'A'], [2, '1']]], [8, [[1, [[1, 'cpu'], [2, [[1, '500m']]]]]]], [13, ''], [14, 'Always'], [15, [[2, false]]], [16, true], [17, false], [18, true]]],
            [3, 'Never'],
            [4, 5],
            [6, ''],
            [11, false],
          ],
        ],
        [3, []],
      ]),
      {
        kind: 'Pod',
        apiVersion: 'v1',
        metadata: { name: 'p', labels: { run: 'p' } },
        spec: {
          containers: [{ name: 'c', image: 'img', command: ['sh'], args: ['-c', 'sleep 1'], ports: [{ containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'A', value: '1' }], resources: { limits: { cpu: '500m' } }, imagePullPolicy: 'Always', securityContext: { privileged: false }, stdin: true, tty: true }],
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 5,
        },
        status: {},
      },
    ],
    [
      'Deployment: replicas 0 kept (a pointer), IntOrString as a string and as a number, a selector with expressions',
      envelope('apps/v1', 'Deployment', [
        [1, meta('d')],
        [2, [[1, 0], [2, [[2, [[1, 'tier'], [2, 'In'], [3, 'a'], [3, 'b']]]]], [3, [[1, meta('')], [2, [[2, [[1, 'c'], [2, 'i'], [8, []]]]]]]], [4, [[1, 'RollingUpdate'], [2, [[1, [[1, 0], [2, 0]]], [2, [[1, 1], [3, '50%']]]]]]]]],
        [3, [[1, 0], [2, 0]]],
      ]),
      {
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        metadata: { name: 'd' },
        spec: {
          replicas: 0,
          selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
          template: { metadata: {}, spec: { containers: [{ name: 'c', image: 'i', resources: {} }] } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '50%' } },
        },
        status: {},
      },
    ],
  ])('%s', (_rule, body, expected) => {
    expect(decodeKubernetesProtobuf(body)).toEqual(expected);
  });

  it.each<[string, Buffer, string]>([
    ['a kind without a table', envelope('v1', 'ServiceAccount', [[1, meta('sa')]]), 'it decodes protobuf only for Namespace (v1), ConfigMap (v1), Pod (v1), Deployment (apps/v1), Eviction (policy/v1), DeleteOptions (v1), and this body is ServiceAccount (v1)'],
    ['a field the table lacks, set (tolerations)', envelope('v1', 'Pod', [[1, meta('p')], [2, [[22, [[1, 'k']]]]]]), 'field 22 of core/v1 PodSpec (at spec) is set, and this server does not decode it'],
    ['a status a client should not send', envelope('apps/v1', 'Deployment', [[1, meta('d')], [3, [[2, 3]]]]), 'field 2 of apps/v1 DeploymentStatus (at status) is set, and this server does not decode it'],
    ['a compressed body', envelope('v1', 'Namespace', [[1, meta('x')]], 'gzip'), 'the body\'s contentEncoding "gzip" is not supported'],
  ])('refused by name: %s', (_rule, body, message) => {
    expect(thrown(body)).toEqual({ type: UndecodableProtobufError.name, message });
  });

  it('a field the table lacks holding its zero value is read past (gogo writes every non-pointer field)', () => {
    expect(decodeKubernetesProtobuf(envelope('v1', 'Pod', [[1, meta('p')], [2, [[22, []], [99, 0], [98, '']]]]))).toEqual({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' }, spec: { containers: null } });
  });

  it.each<[string, Buffer, string]>([
    ['JSON sent with the protobuf content type', Buffer.from('{"kind":"Namespace"}'), 'the body does not start with the protobuf magic "k8s\\0" (107 56 115 0) at byte 0'],
    ['a length past the end', Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x12, 0x05, 0x01])]), 'field of 5 bytes runs past the end of the message at byte 2'],
    ['a varint that never ends', Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x08, 0xff, 0xff])]), 'varint runs past the end of the message at byte 1'],
    ['a known field with the wrong wire type (replicas as bytes)', envelope('apps/v1', 'Deployment', [[2, [[1, 'three']]]]), 'spec.replicas: wire type 2 where 0 was expected'],
  ])('not protobuf: %s', (_rule, body, message) => {
    expect(thrown(body)).toEqual({ type: WireFormatError.name, message });
  });
});

/** Loopback server that records each request body and answers 500, so kubectl sends its body once and gives up. */
async function captureServer(): Promise<{ server: Server; url: string; bodies: Array<{ method: string; path: string; contentType: string; accept: string; body: Buffer }> }> {
  const bodies: Array<{ method: string; path: string; contentType: string; accept: string; body: Buffer }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({ method: req.method ?? '', path: (req.url ?? '').split('?')[0] ?? '', contentType: req.headers['content-type'] ?? '', accept: req.headers.accept ?? '', body: Buffer.concat(chunks) });
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'recorded', code: 500 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

describe("kubectl's own bodies decode to kubectl's own JSON (--dry-run=client -o json is the judge)", () => {
  const bin = kubectlBinary();
  let capture: Awaited<ReturnType<typeof captureServer>>;
  const dir = mkdtempSync(join(tmpdir(), 'kmaint-protobuf-'));
  const binaryFile = join(dir, 'blob.bin');

  beforeAll(async () => {
    if (!bin) throw new Error('no kubectl binary: npm run testbed:build builds one, or put one on PATH');
    writeFileSync(binaryFile, Buffer.from([0, 1, 2, 254, 255]));
    capture = await captureServer();
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => capture.server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = async (args: string[]): Promise<string> => {
    try {
      return (await run(bin ?? 'kubectl', ['--server', capture.url, '--cache-dir', join(dir, 'cache'), ...args], { timeout: 60_000 })).stdout;
    } catch (err) {
      return (err as { stdout?: string }).stdout ?? '';
    }
  };

  it.each<[string, string[], string]>([
    ['create namespace', ['create', 'namespace', 'team-a'], '/api/v1/namespaces'],
    ['create configmap --from-literal (and a binary --from-file)', ['create', 'configmap', 'settings', '-n', 'team-a', '--from-literal=mode=fast', '--from-literal=greeting=hello world', `--from-file=blob=${binaryFile}`], '/api/v1/namespaces/team-a/configmaps'],
    ['create deployment --image --replicas --port', ['create', 'deployment', 'web', '-n', 'team-a', '--image=registry.k8s.io/pause:3.10', '--replicas=3', '--port=8080'], '/apis/apps/v1/namespaces/team-a/deployments'],
    ['create deployment with two images and replicas 0', ['create', 'deployment', 'pair', '--image=registry.k8s.io/pause:3.10', '--image=busybox:1.36', '--replicas=0'], '/apis/apps/v1/namespaces/default/deployments'],
  ])('kubectl %s', async (_what, args, path) => {
    const expected = JSON.parse(await kubectl([...args, '--dry-run=client', '-o', 'json'])) as Record<string, unknown>;
    const before = capture.bodies.length;
    await kubectl(args);
    const sent = capture.bodies.slice(before).filter((b) => b.method === 'POST');
    expect(sent.map((b) => [b.path, b.contentType, b.accept])).toEqual([[path, 'application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf,application/json']]);
    expect(decodeKubernetesProtobuf(sent[0]?.body ?? Buffer.alloc(0))).toEqual(expected);
  });
});
