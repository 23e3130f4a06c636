// Issue 40: a gang of any size is grouped without throwing (the oldest member was found with Math.min(...members), a
// spread of one argument per member, which throws past about 120,000 members).
import { describe, expect, it } from 'vitest';
import { LABEL_GANG } from '#api';
import { findGangs } from './gangs.ts';
import { buildSchedulingState } from './state.ts';
import { KMAINT_NAMESPACE, pending } from './test-builders.ts';

describe('findGangs over a gang of 150,000 requests', () => {
  it('groups them all and finds the oldest', () => {
    const members = Array.from({ length: 150_000 }, (_, i) => pending(`m${i}`, `node-${i}`, 2 + (i % 20), { labels: { [LABEL_GANG]: 'huge' } }));
    members[77_777] = pending('oldest', 'node-77777', 1, { labels: { [LABEL_GANG]: 'huge' } });
    const gangs = findGangs(buildSchedulingState({ nodes: [], maintenances: members, kmaintNamespace: KMAINT_NAMESPACE }), undefined, new Map());
    const gang = gangs.byKey.get('default/oldest');
    expect([gangs.byKey.size, gang?.members.length, gang?.waitingSince]).toEqual([150_000, 150_000, Date.parse('2025-12-01T00:00:00Z')]);
  });
});
