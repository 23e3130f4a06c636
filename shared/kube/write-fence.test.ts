// KubeClient.fenceWrites: the fence is asked before every attempt of every write (retries included), a refusal stops
// the write unsent and reaches the caller, and the caller's own lease writes go past it.
import { describe, expect, it } from 'vitest';
import type { V1Lease } from '@kubernetes/client-node';
import { HttpFailureError, KubeClient, WriteFenceError, type KubeTransport } from './index.ts';

/** A transport that records the writes sent; the first `failFirst` of them are answered 503. */
function recordingTransport(failFirst = 0): { transport: KubeTransport; sent: string[] } {
  const sent: string[] = [];
  let failures = 0;
  const answer = (what: string): Promise<{ resourceVersion: string }> => {
    sent.push(what);
    if (failures < failFirst) {
      failures++;
      return Promise.reject(new HttpFailureError({ status: 503, message: 'unavailable', retryAfter: undefined }));
    }
    return Promise.resolve({ resourceVersion: String(sent.length + 10) });
  };
  const transport = {
    listPage: () => Promise.reject(new Error('no reads in these tests')),
    patch: (target: { resource: { plural: string }; name: string }) => answer(`patch ${target.resource.plural}/${target.name}`),
    replace: (target: { resource: { plural: string }; name: string }) => answer(`replace ${target.resource.plural}/${target.name}`),
    evict: (namespace: string, name: string) => answer(`evict ${namespace}/${name}`).then(() => undefined),
  } as unknown as KubeTransport;
  return { transport, sent };
}

const lease = (name: string): V1Lease => ({ metadata: { name, namespace: 'kmaint', resourceVersion: '5' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 30 } });

async function outcomeOf(p: Promise<unknown>): Promise<string> {
  try {
    const out = (await p) as { kind?: string } | undefined;
    return out?.kind ?? 'ok';
  } catch (err) {
    return err instanceof WriteFenceError ? `refused: ${err.message}` : `threw: ${String(err)}`;
  }
}

describe('KubeClient.fenceWrites', () => {
  it('asks the fence before each attempt: a write retried once after a 503 asks twice and lands', async () => {
    const { transport, sent } = recordingTransport(1);
    const client = new KubeClient(transport, { sleep: () => Promise.resolve() });
    let asked = 0;
    client.fenceWrites(() => {
      asked++;
      return Promise.resolve();
    });
    expect(await outcomeOf(client.patchNodeAnnotations('n1', '3', { 'kmaint.io/admitted': 'team/a/u1' }))).toBe('ok');
    expect({ asked, sent }).toEqual({ asked: 2, sent: ['patch nodes/n1', 'patch nodes/n1'] });
  });

  it('a fence that refuses the retry leaves it unsent and the write throws WriteFenceError (not an error outcome)', async () => {
    const { transport, sent } = recordingTransport(1);
    const client = new KubeClient(transport, { sleep: () => Promise.resolve() });
    let asked = 0;
    client.fenceWrites(() => (++asked === 1 ? Promise.resolve() : Promise.reject(new WriteFenceError('lease taken'))));
    expect(await outcomeOf(client.setUnschedulable('n1', '3', true))).toBe('refused: lease taken');
    expect({ sent, counted: client.counts.byVerb['patch nodes'], errors: client.counts.errors }).toEqual({ sent: ['patch nodes/n1'], counted: 1, errors: 0 });
  });

  it('evictions are fenced too', async () => {
    const { transport, sent } = recordingTransport();
    const client = new KubeClient(transport);
    client.fenceWrites(() => Promise.reject(new WriteFenceError('lease taken')));
    expect(await outcomeOf(client.evictPod('team', 'p1'))).toBe('refused: lease taken');
    expect(sent).toEqual([]);
  });

  it("the caller's own lease goes past the fence; any other lease write (a node's medik8s lease) does not", async () => {
    const { transport, sent } = recordingTransport();
    const client = new KubeClient(transport);
    client.fenceWrites(() => Promise.reject(new WriteFenceError('lease taken')));
    expect(await outcomeOf(client.replaceLease('kmaint', lease('kmaint-scheduler'), { ownLease: true }))).toBe('ok');
    expect(await outcomeOf(client.replaceLease('kmaint', lease('node-n1')))).toBe('refused: lease taken');
    expect(sent).toEqual(['replace leases/kmaint-scheduler']);
  });

  it('one fence at a time; the function it returns removes it, and writes then go unasked', async () => {
    const { transport, sent } = recordingTransport();
    const client = new KubeClient(transport);
    const remove = client.fenceWrites(() => Promise.reject(new WriteFenceError('lease taken')));
    expect(() => client.fenceWrites(() => Promise.resolve())).toThrow('a write fence is already installed on this client');
    remove();
    expect(await outcomeOf(client.patchNodeAnnotations('n1', '3', { a: 'b' }))).toBe('ok');
    expect(sent).toEqual(['patch nodes/n1']);
  });
});
