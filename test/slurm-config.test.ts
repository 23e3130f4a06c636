// spec.slurm cannot exfiltrate (issue 31 point 4): a config naming another credential of kmaint's process as the token,
// or a plain-http slurmrestd, is refused where operators look (the config's Valid condition, the pass summary), and Slurm
// stays off (shared/slurm/read.test.ts shows that nothing is read or sent then).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_PLURAL, GROUP, VERSION } from '../shared/api/index.ts';
import type { MaintenanceOperatorConfig } from '../shared/api/index.ts';
import { clusterKind } from './support/cluster.ts';
import { KMAINT_NS, admin, createNM, generalNodes, installCrds, pass, removeAllNMs, setConfig, setUnschedulable } from './support/kmaint.ts';

async function validCondition(): Promise<string[] | undefined> {
  const cfg = (await admin().custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: KMAINT_NS, plural: CONFIG_PLURAL, name: 'default' })) as MaintenanceOperatorConfig;
  const c = cfg.status?.conditions?.find((x) => x.type === 'Valid');
  return c ? [c.status, c.reason, c.message] : undefined;
}

describe(`spec.slurm refused values on the ${clusterKind()}`, () => {
  beforeAll(installCrds);
  afterAll(() => setConfig(undefined));

  it.each([
    {
      rule: "tokenEnv naming the Lambda role's key",
      slurm: { enabled: true, mode: 'node', url: 'https://slurm.example.com:6820', tokenEnv: 'AWS_SECRET_ACCESS_KEY' },
      problem: 'spec.slurm.tokenEnv: "AWS_SECRET_ACCESS_KEY" is not a Slurm token variable: the name must match ^SLURM_[A-Z0-9_]+$ (e.g. SLURM_JWT), so that no other variable of kmaint\'s process is sent as the token',
    },
    {
      rule: 'a plain-http url without allowInsecureHttp',
      slurm: { enabled: true, mode: 'node', url: 'http://slurm.example.com:6820', tokenEnv: 'SLURM_JWT' },
      problem: 'spec.slurm.url: "http://slurm.example.com:6820" would send the Slurm token unencrypted: use https://, or set spec.slurm.allowInsecureHttp: true for a slurmrestd reached only over a trusted network',
    },
    {
      rule: "tokenSecretArn naming kmaint's kubeconfig secret",
      slurm: { enabled: true, mode: 'node', url: 'https://slurm.example.com:6820', tokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:kmaint-kubeconfig-AbCdEf' },
      problem: 'spec.slurm.tokenSecretArn: secret "kmaint-kubeconfig-AbCdEf" is not under kmaint/slurm/: the Slurm token\'s secret name must start with kmaint/slurm/ (the only secrets kmaint\'s Slurm roles may read)',
    },
  ])('$rule: the config\'s Valid condition and the scheduler\'s summary name the field', async ({ slurm, problem }) => {
    await setConfig({ slurm });
    const summary = await pass('scheduler');
    expect([summary.configProblems, await validCondition()]).toEqual([[problem], ['False', 'InvalidValue', problem]]);
  });

  it('allowInsecureHttp: true takes the http url: the config is valid again', async () => {
    await setConfig({ slurm: { enabled: true, mode: 'node', url: 'http://slurm.example.com:6820', allowInsecureHttp: true, tokenEnv: 'SLURM_JWT' } });
    const summary = await pass('scheduler');
    expect([summary.configProblems, await validCondition()]).toEqual([[], undefined]);
  });

  it("a slurmrestd url that redirects elsewhere: the url gets kmaint's requests with the token, the redirect target gets none (kmaint does not follow redirects)", async () => {
    // The attack: a url an admin was led to set (or a compromised slurmrestd) answers 307 to a host that collects tokens.
    const listen = (server: Server): Promise<number> => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
    const atTrap: string[] = [];
    const atUrl: string[] = [];
    const tokenOf = (req: IncomingMessage): string => String(req.headers['x-slurm-user-token'] ?? '');
    const trap = createServer((req, res) => {
      atTrap.push(`${req.method ?? ''} ${req.url ?? ''} token=${tokenOf(req)}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const trapPort = await listen(trap);
    const redirector = createServer((req, res) => {
      atUrl.push(tokenOf(req));
      res.writeHead(307, { location: `http://127.0.0.1:${trapPort}${req.url ?? '/'}` }).end();
    });
    const urlPort = await listen(redirector);
    const node = (await generalNodes())[0] as string;
    process.env['SLURM_JWT_REDIRECT_TEST'] = 'token-issue-31';
    try {
      await setConfig({ slurm: { enabled: true, mode: 'node', url: `http://127.0.0.1:${urlPort}`, allowInsecureHttp: true, tokenEnv: 'SLURM_JWT_REDIRECT_TEST' } });
      // A request on a node makes the drainer drain its Slurm node (node mode: the node's name), and cleanup's sweep
      // reads Slurm on every pass: both send the token to the url.
      await createNM('default', 'redirected', { requestorID: 'upgrade.acme.com', nodeName: node });
      for (const fn of ['scheduler', 'drainer', 'cleanup', 'scheduler', 'drainer'] as const) await pass(fn);
      expect([new Set(atUrl), atUrl.length > 0, atTrap]).toEqual([new Set(['token-issue-31']), true, []]);
    } finally {
      await setConfig(undefined);
      await removeAllNMs('default');
      await setUnschedulable(node, false);
      delete process.env['SLURM_JWT_REDIRECT_TEST'];
      await new Promise((resolve) => trap.close(resolve));
      await new Promise((resolve) => redirector.close(resolve));
    }
  });
});
