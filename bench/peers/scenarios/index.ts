// The peer-benchmark scenarios in the order they run.
import type { Scenario } from '../scenario.ts';
import { parallel24 } from './parallel-24.ts';
import { pdb60s } from './pdb-60s.ts';
import { rolling200 } from './rolling-200.ts';
import { seedReadme } from './seed-readme.ts';

export const SCENARIOS: readonly Scenario[] = [seedReadme, parallel24, pdb60s, rolling200];
