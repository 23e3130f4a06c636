import { describe } from 'vitest';
import { ANNOTATION_DEADLINE, ANNOTATION_NOT_BEFORE } from '#api';
import { itPlansEachRow, limits, pending, someNodes } from './test-builders.ts';
import type { PlanRow } from './test-builders.ts';

// Issue 21: a request's own times. NOW is 2026-01-01T00:00:00Z.
const notBefore = (at: string) => ({ annotations: { [ANNOTATION_NOT_BEFORE]: at } });
const deadline = (at: string) => ({ annotations: { [ANNOTATION_DEADLINE]: at } });

const rows: PlanRow[] = [
  {
    rule: 'a not-before still to come waits, saying until when in UTC seconds, and holds no slot',
    nodes: someNodes(3),
    maintenances: [pending('later', 'node-01', 1, notBefore('2026-01-01T07:30:00.250+02:00')), pending('now', 'node-02', 2)],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/now': 'admitted: slot 1 of 1' },
    waiting: { 'default/later': 'not before 2026-01-01T05:30:00Z (kmaint.io/not-before)' },
    blocked: true,
  },
  {
    rule: 'a not-before that has come (equal to now) is admitted like any request',
    nodes: someNodes(3),
    maintenances: [pending('due', 'node-01', 1, notBefore('2026-01-01T00:00:00Z'))],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/due': 'admitted: slot 1 of 1' },
    waiting: {},
    blocked: false,
  },
  {
    rule: 'only not-before requests left: blocked, not idle (time frees them)',
    nodes: someNodes(3),
    maintenances: [pending('later', 'node-01', 1, notBefore('2026-01-02T00:00:00Z'))],
    limits: limits(1, 'unlimited'),
    admitted: {},
    waiting: { 'default/later': 'not before 2026-01-02T00:00:00Z (kmaint.io/not-before)' },
    blocked: true,
  },
  {
    rule: 'an invalid not-before is never guessed: the request waits and the message says why',
    nodes: someNodes(3),
    maintenances: [pending('bad', 'node-01', 1, notBefore('next tuesday'))],
    limits: limits(1, 'unlimited'),
    admitted: {},
    waiting: { 'default/bad': 'request admits nothing: kmaint.io/not-before "next tuesday" is not an RFC 3339 time (e.g. 2026-12-01T06:00:00Z)' },
    blocked: true,
  },
  {
    rule: 'a not-yet request never holds its node: the other request on that node is admitted',
    nodes: someNodes(3),
    maintenances: [pending('later', 'node-01', 1, notBefore('2026-01-02T00:00:00Z')), pending('other', 'node-01', 5)],
    limits: limits(2, 'unlimited'),
    admitted: { 'default/other': 'admitted: slot 1 of 2' },
    waiting: { 'default/later': 'not before 2026-01-02T00:00:00Z (kmaint.io/not-before)' },
    blocked: true,
  },
  {
    rule: 'nearest deadline takes the last slot before an older request without one',
    nodes: someNodes(3),
    maintenances: [pending('old', 'node-01', 1), pending('far', 'node-02', 5, deadline('2026-01-09T00:00:00Z')), pending('near', 'node-03', 9, deadline('2026-01-02T00:00:00Z'))],
    limits: limits(1, 'unlimited'),
    admitted: { 'default/near': 'admitted: slot 1 of 1' },
    waiting: { 'default/far': 'maxParallelOperations 1 reached (1 in progress)', 'default/old': 'maxParallelOperations 1 reached (1 in progress)' },
    blocked: true,
  },
];

describe('planScheduling: kmaint.io/not-before and kmaint.io/deadline', () => {
  itPlansEachRow(rows);
});
