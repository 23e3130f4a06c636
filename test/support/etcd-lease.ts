// The etcd lease an object of the testbed is stored under, read from etcd's own JSON gateway (/v3/kv/range,
// /v3/lease/timetolive): the only place the API server's --event-ttl shows. Testbed only (it has the etcd); the URL is
// the one the testbed's kube-apiserver was started with (its pid in DIR/pids.json, its flags in /proc).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testbed } from './cluster.ts';

function etcdUrl(): string {
  const pids = JSON.parse(readFileSync(join(testbed().dir, 'pids.json'), 'utf8')) as Array<{ name: string; pid: number }>;
  const apiserver = pids.find((p) => p.name === 'kube-apiserver');
  if (!apiserver) throw new Error(`no kube-apiserver in ${testbed().dir}/pids.json`);
  const flag = readFileSync(`/proc/${apiserver.pid}/cmdline`, 'utf8').split('\0').find((a) => a.startsWith('--etcd-servers='));
  if (!flag) throw new Error(`kube-apiserver ${apiserver.pid} has no --etcd-servers flag`);
  return flag.slice('--etcd-servers='.length).split(',')[0] ?? '';
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${etcdUrl()}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`etcd ${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The granted TTL (seconds, as etcd prints it) of the lease etcd key `key` is stored under; `{ lease: 'none' }` without one. */
export async function etcdLeaseOf(key: string): Promise<{ grantedTTL: string } | { lease: 'none' | 'no such key' }> {
  const range = await post<{ kvs?: Array<{ lease?: string }> }>('/v3/kv/range', { key: Buffer.from(key).toString('base64') });
  const kv = range.kvs?.[0];
  if (!kv) return { lease: 'no such key' };
  if (!kv.lease || kv.lease === '0') return { lease: 'none' };
  const ttl = await post<{ grantedTTL?: string }>('/v3/lease/timetolive', { ID: kv.lease });
  return { grantedTTL: ttl.grantedTTL ?? '' };
}
