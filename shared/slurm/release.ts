// Cleanup's Slurm step: undrain only the Slurm nodes this request recorded and whose Slurm reason still names it
// (the record, which a requestor can write, only says where to look; 24.11 keeps the reason after an undrain, so the DRAIN
// flag must be on too), then drop the record.
import { ANNOTATION_SLINKY_DRAINED, type NodeMaintenance } from '../api/index.ts';
import { ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START, mayUndrain, recordedSlurmNodes } from './ownership.ts';
import { ANNOTATION_SLURM_RESERVATION, ANNOTATION_SLURM_RESERVATION_PROBLEM } from './reservation-rules.ts';
import { planReservationRelease } from './reservation.ts';
import { hasDrainFlag } from './state.ts';
import type { SlurmContext, SlurmWrite } from './view.ts';

export type SlurmRelease =
  /** Nothing (left) to undrain: drop these annotations with the finalizer. */
  | { kind: 'done'; dropAnnotations: string[] }
  /** Keep the finalizer: undrains sent this pass (confirmed next pass), or Slurm cannot be read. */
  | { kind: 'hold'; why: string; writes: SlurmWrite[] };

/**
 * Pure: what cleanup does in Slurm for one deleted request: the maintenance reservation it made is deleted and the
 * drains are lifted; the finalizer stays until both are confirmed. `ctx` undefined means spec.slurm is off.
 */
export function planSlurmRelease(nm: NodeMaintenance, ctx: SlurmContext | undefined): SlurmRelease {
  const reservation = planReservationRelease(nm, ctx);
  const drains = planDrainRelease(nm, ctx);
  if (reservation.kind === 'done') {
    if (drains.kind === 'hold') return drains;
    const extra = [ANNOTATION_SLURM_RESERVATION, ANNOTATION_SLURM_RESERVATION_PROBLEM].filter((k) => nm.metadata.annotations?.[k] !== undefined);
    return { kind: 'done', dropAnnotations: [...drains.dropAnnotations, ...extra] };
  }
  if (drains.kind === 'done') return reservation;
  return { kind: 'hold', why: `${drains.why}; ${reservation.why}`, writes: [...drains.writes, ...reservation.writes] };
}

function planDrainRelease(nm: NodeMaintenance, ctx: SlurmContext | undefined): SlurmRelease {
  const annotations = nm.metadata.annotations ?? {};
  // Slinky's drains (kmaint.io/slinky-drained) are never lifted by kmaint: uncordoning makes Slinky undrain them.
  const drop = [ANNOTATION_SLURM_DRAINED, ANNOTATION_SLURM_DRAIN_START, ANNOTATION_SLINKY_DRAINED].filter((k) => annotations[k] !== undefined);
  const recorded = recordedSlurmNodes(nm);
  if (recorded.length === 0) return { kind: 'done', dropAnnotations: drop };
  const names = recorded.join(', ');
  if (ctx === undefined) return { kind: 'hold', why: `spec.slurm is not enabled: cannot undrain Slurm node ${names} (drop annotation ${ANNOTATION_SLURM_DRAINED} to release without undraining)`, writes: [] };
  if (ctx.kind === 'invalid') return { kind: 'hold', why: `cannot undrain Slurm node ${names}: ${ctx.problem}`, writes: [] };
  if (ctx.view.kind === 'problem') return { kind: 'hold', why: `cannot undrain Slurm node ${names}: ${ctx.view.problem.message}`, writes: [] };
  if (ctx.view.kind === 'pod-conditions') return { kind: 'hold', why: `cannot undrain Slurm node ${names}: spec.slurm has no slurmrestd url and token (token-free mode); configure them, or drop annotation ${ANNOTATION_SLURM_DRAINED} to release without undraining`, writes: [] };
  const writes: SlurmWrite[] = [];
  for (const name of recorded) {
    const info = ctx.view.nodes.get(name);
    // A node gone from Slurm, undrained already, or re-drained by someone else or for another request is not ours to lift.
    if (!info || !hasDrainFlag(info.state) || !mayUndrain(nm, true, info.reason, ctx.settings.reasonPrefix)) continue;
    writes.push({ kind: 'slurmUndrain', node: name, maintenance: { namespace: nm.metadata.namespace ?? '', name: nm.metadata.name }, why: `${nm.metadata.namespace ?? ''}/${nm.metadata.name} deleted; kmaint drained it` });
  }
  if (writes.length > 0) return { kind: 'hold', why: `undraining Slurm node ${recorded.filter((n) => writes.some((w) => w.kind === 'slurmUndrain' && w.node === n)).join(', ')}`, writes };
  return { kind: 'done', dropAnnotations: drop };
}
