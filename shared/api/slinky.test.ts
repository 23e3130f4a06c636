// Slinky's wire strings letter by letter against the interop fact sheet (interop-2026.md section 2).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_SLINKY_DRAINED,
  SLINKY_CLUSTER_LABEL,
  SLINKY_CONDITION_PREFIX,
  SLINKY_NODE_CORDON_REASON,
  SLINKY_PDB_PREFIX,
  SLINKY_POD_HOSTNAME_LABEL,
  SLINKY_POD_PROTECT_LABEL,
  SLINKY_REASON_PREFIX,
} from './slinky.ts';

const SHEET = readFileSync(fileURLToPath(new URL('../../../shared/reference/interop-2026.md', import.meta.url)), 'utf8');
const SLINKY = SHEET.slice(SHEET.indexOf('## 2. Slinky'), SHEET.indexOf('## 3. '));

describe('Slinky wire strings (interop-2026.md section 2)', () => {
  it.each([
    ['SLINKY_NODE_CORDON_REASON', SLINKY_NODE_CORDON_REASON, '| `nodeset.slinky.slurm.net/node-cordon-reason` | Node |'],
    ['SLINKY_POD_HOSTNAME_LABEL', SLINKY_POD_HOSTNAME_LABEL, '| `nodeset.slinky.slurm.net/pod-hostname` (label) | NodeSet pod |'],
    ['SLINKY_POD_PROTECT_LABEL', SLINKY_POD_PROTECT_LABEL, '| `nodeset.slinky.slurm.net/pod-protect` (label) | NodeSet pod |'],
    ['SLINKY_CLUSTER_LABEL', SLINKY_CLUSTER_LABEL, '| `slinky.slurm.net/cluster` (label) | pods, PDB |'],
    ['SLINKY_PDB_PREFIX', SLINKY_PDB_PREFIX, 'Name `slurm-workers-pdb-<controller name>`'],
    ['SLINKY_REASON_PREFIX', SLINKY_REASON_PREFIX, '| Slurm reason prefix | Slurm node `Reason` | `slurm-operator: ` + reason |'],
    ['SLINKY_CONDITION_PREFIX', SLINKY_CONDITION_PREFIX, '### 2.4 Pod conditions (written with `pods/status` patch; prefix `SlurmNodeState`)'],
  ])('%s is %s as the sheet writes it', (_name, value, line) => {
    expect(SLINKY).toContain(line);
    expect(line).toContain(value);
  });

  it('the values themselves', () => {
    expect([SLINKY_NODE_CORDON_REASON, SLINKY_POD_HOSTNAME_LABEL, SLINKY_POD_PROTECT_LABEL, SLINKY_CLUSTER_LABEL, SLINKY_PDB_PREFIX, SLINKY_REASON_PREFIX, SLINKY_CONDITION_PREFIX]).toEqual([
      'nodeset.slinky.slurm.net/node-cordon-reason',
      'nodeset.slinky.slurm.net/pod-hostname',
      'nodeset.slinky.slurm.net/pod-protect',
      'slinky.slurm.net/cluster',
      'slurm-workers-pdb-',
      'slurm-operator: ',
      'SlurmNodeState',
    ]);
  });

  it("kmaint's own record sits under kmaint.io/", () => {
    expect(ANNOTATION_SLINKY_DRAINED).toBe('kmaint.io/slinky-drained');
  });
});
