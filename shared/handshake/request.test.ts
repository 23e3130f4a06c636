// The handshake request's name and requestor: deterministic, always a valid object name / requestorID.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { aHandshakeNode } from './test-builders.ts';
import { handshakeRequestName, requestorOf } from './request.ts';

const hash8 = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 8);

describe('handshakeRequestName', () => {
  it.each([
    { rule: 'a short node name is kept whole', node: 'worker-1', expected: 'handshake-worker-1' },
    { rule: 'a node name of 243 characters still fits 253', node: 'a'.repeat(243), expected: `handshake-${'a'.repeat(243)}` },
    { rule: 'one character more: a prefix and a hash of the whole name', node: 'a'.repeat(244), expected: `handshake-${'a'.repeat(234)}-${hash8('a'.repeat(244))}` },
    {
      rule: 'a prefix cut after a dot or dash drops them (a name part ends alphanumeric)',
      node: `${'b'.repeat(232)}.-${'c'.repeat(20)}`,
      expected: `handshake-${'b'.repeat(232)}-${hash8(`${'b'.repeat(232)}.-${'c'.repeat(20)}`)}`,
    },
  ])('$rule', ({ node, expected }) => {
    const name = handshakeRequestName(node);
    expect(name).toBe(expected);
    expect(name.length).toBeLessThanOrEqual(253);
  });

  it('two long names that share their first 234 characters get different names', () => {
    const head = 'x'.repeat(240);
    expect(handshakeRequestName(`${head}-one`)).not.toBe(handshakeRequestName(`${head}-two`));
  });
});

describe('requestorOf', () => {
  it.each<{ rule: string; annotations: Record<string, string>; expected: ReturnType<typeof requestorOf> }>([
    { rule: 'no annotation: node-agent.kmaint.io', annotations: {}, expected: { ok: true, requestorID: 'node-agent.kmaint.io' } },
    { rule: 'a valid annotation is used as written', annotations: { 'kmaint.io/requestor': 'SRIOV-agent.example.com' }, expected: { ok: true, requestorID: 'SRIOV-agent.example.com' } },
    {
      rule: 'one character is too short',
      annotations: { 'kmaint.io/requestor': 'a' },
      expected: { ok: false, problem: 'kmaint.io/requestor "a" is not a valid requestorID (2 to 63 characters: dot-separated labels of letters, digits and inner dashes)' },
    },
    {
      rule: '64 characters is too long',
      annotations: { 'kmaint.io/requestor': 'a'.repeat(64) },
      expected: { ok: false, problem: `kmaint.io/requestor "${'a'.repeat(64)}" is not a valid requestorID (2 to 63 characters: dot-separated labels of letters, digits and inner dashes)` },
    },
    {
      rule: 'an empty annotation is not the default',
      annotations: { 'kmaint.io/requestor': '' },
      expected: { ok: false, problem: 'kmaint.io/requestor "" is not a valid requestorID (2 to 63 characters: dot-separated labels of letters, digits and inner dashes)' },
    },
    // Issue 31 point 1: kmaint's own requestorIDs are reserved (any letter case).
    ...['reaper.kmaint.io', 'Reaper.KMAINT.io', 'cloud-events.kmaint.io', 'sriov-network-operator.kmaint.io', 'reboot-sentinel.kmaint.io'].map((id) => ({
      rule: `kmaint's own requestorID ${id} is refused`,
      annotations: { 'kmaint.io/requestor': id },
      expected: { ok: false as const, problem: `kmaint.io/requestor "${id}" is reserved for kmaint's own requests (reaper.kmaint.io, cloud-events.kmaint.io, sriov-network-operator.kmaint.io, reboot-sentinel.kmaint.io)` },
    })),
  ])('$rule', ({ annotations, expected }) => {
    expect(requestorOf(aHandshakeNode({ annotations }))).toEqual(expected);
  });
});
