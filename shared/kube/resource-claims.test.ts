// ResourceClaims from the newest resource.k8s.io version the API server serves, on a loopback server answering as
// Kubernetes 1.32 (v1beta1), 1.33 (v1beta2, v1beta1) and 1.34+ (v1, …) do: an unserved version is a 404.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from './client.ts';
import { aLoopbackClient } from './test-builders.ts';

/** The API server's answer for a group version it does not serve (text, as the apiserver's NotFound handler sends). */
const NOT_SERVED = '404 page not found\n';

const claim = (version: string): Record<string, unknown> => ({
  apiVersion: `resource.k8s.io/${version}`,
  kind: 'ResourceClaim',
  metadata: { name: 'gpu', namespace: 'ml', resourceVersion: '3' },
  spec: { devices: { requests: [{ name: 'gpu', deviceClassName: 'gpu.nvidia.com' }] } },
});

describe('KubeClient.listResourceClaims across Kubernetes versions', () => {
  let server: Server;
  const requests: string[] = [];
  /** The versions the fake API server serves; a 403 answers `forbidden` ones. */
  let served: string[] = [];
  let forbidden: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const version = /^\/apis\/resource\.k8s\.io\/([^/]+)\/resourceclaims/.exec(req.url ?? '')?.[1] ?? '';
      if (forbidden.includes(version)) {
        const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: `resourceclaims.resource.k8s.io is forbidden: User "kmaint" cannot list resource "resourceclaims"` };
        res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify(status));
        return;
      }
      if (!served.includes(version)) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(NOT_SERVED);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ kind: 'ResourceClaimList', apiVersion: `resource.k8s.io/${version}`, metadata: { resourceVersion: '9' }, items: [claim(version)] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  function client(): KubeClient {
    return aLoopbackClient(server, { pageSize: 500 });
  }
  const path = (version: string): string => `/apis/resource.k8s.io/${version}/resourceclaims?limit=500`;

  it.each([
    { rule: '1.34 and later: v1, one LIST', serves: ['v1', 'v1beta2'], asked: ['v1'], version: 'v1' },
    { rule: '1.33: v1 is not served, v1beta2 is', serves: ['v1beta2', 'v1beta1'], asked: ['v1', 'v1beta2'], version: 'v1beta2' },
    { rule: '1.32: only v1beta1', serves: ['v1beta1'], asked: ['v1', 'v1beta2', 'v1beta1'], version: 'v1beta1' },
  ])('$rule', async ({ serves, asked, version }) => {
    served = serves;
    forbidden = [];
    requests.length = 0;
    const c = client();
    expect((await c.listResourceClaims()).map((i) => i.apiVersion)).toEqual([`resource.k8s.io/${version}`]);
    expect(requests).toEqual(asked.map(path));
    // The version found is asked first from then on.
    requests.length = 0;
    await c.listResourceClaims();
    expect(requests).toEqual([path(version)]);
  });

  it('no version served (DRA off): no claim can exist, [] after asking each', async () => {
    served = [];
    forbidden = [];
    requests.length = 0;
    expect(await client().listResourceClaims()).toEqual([]);
    expect(requests).toEqual(['v1', 'v1beta2', 'v1beta1'].map(path));
  });

  it('a refusal is not a missing version: reported at once, with the version asked', async () => {
    served = ['v1beta1'];
    forbidden = ['v1'];
    requests.length = 0;
    await expect(client().listResourceClaims()).rejects.toThrow(
      'listing resourceclaims (resource.k8s.io/v1): HTTP 403: resourceclaims.resource.k8s.io is forbidden: User "kmaint" cannot list resource "resourceclaims"',
    );
    expect(requests).toEqual([path('v1')]);
  });
});
