// `kmaint explain node/<name>`: what the reaper's repair ladder holds for one Node — since when kmaint has seen it
// unhealthy, the rung in progress or the one it would get now, its request, and its fault history in the window.
// Reads the Node, the requests and the config (three reads), writes nothing.
import type { V1Node } from '@kubernetes/client-node';
import { ANNOTATION_REAPER_DECISION, maintenanceKey, maintenancePhase, rfc3339Seconds } from '../shared/api/index.ts';
import type { NodeMaintenance } from '../shared/api/index.ts';
import type { KubeClient } from '../shared/kube/index.ts';
import { loadConfig } from '../shared/pass/index.ts';
import { chooseRung, describeHistory, nodeFacts, readHistory, readRung, recordedUnhealthySince, requestAttempts, validationRunning, type LoadedReaper } from '../shared/reaper/index.ts';
import { ageText } from './age-text.ts';
import { UsageError } from './errors.ts';

export interface NodeExplainSnapshot {
  node: V1Node;
  reaper: LoadedReaper;
  /** The requests for this Node. */
  requests: NodeMaintenance[];
}

const NODE_REF = /^node\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/;

/** The Node's name of `node/<name>`, or undefined when `ref` is not of that form. */
export function parseNodeRef(ref: string): string | undefined {
  return NODE_REF.exec(ref)?.[1];
}

export async function readNodeExplainSnapshot(client: KubeClient, namespace: string, name: string): Promise<NodeExplainSnapshot> {
  const [node, requests, rawConfig] = await Promise.all([client.readNode(name), client.listMaintenances(), client.getConfig(namespace)]);
  if (node === undefined) throw new UsageError(`Node ${name} not found`);
  // The config parsed once, as every pass and command does (shared/pass/config.ts); the node count is the one Node shown.
  return { node, reaper: loadConfig({ rawConfig }, 1, namespace).reaper, requests: requests.filter((nm) => nm.spec.nodeName === name) };
}

function at(ms: number, now: Date): string {
  return `${rfc3339Seconds(ms)} (${ageText(Math.max(0, Math.floor((now.getTime() - ms) / 1000)))} ago)`;
}

/** The explanation, one line per entry. Pure. */
export function explainNode(s: NodeExplainSnapshot, now: Date): string[] {
  const name = s.node.metadata?.name ?? '';
  const repair = s.reaper.kind === 'enabled' ? s.reaper.config.repair : undefined;
  const state = s.reaper.kind === 'enabled' ? `reaper enabled${s.reaper.config.dryRun ? ' (dry run)' : ''}` : s.reaper.kind === 'invalid' ? `reaper stopped: ${s.reaper.problems.join('; ')}` : 'reaper disabled';
  const lines = [`Node ${name}: ${state}, repair ladder ${repair !== undefined ? `of ${repair.ladder.length} rung${repair.ladder.length === 1 ? '' : 's'} (${repair.ladder.map((r, i) => `${i} ${r.remedy}`).join(', ')})` : 'off'}`];
  const since = recordedUnhealthySince(s.node);
  lines.push(`  unhealthy since: ${since !== undefined ? at(since, now) : 'not recorded (healthy, or not yet seen unhealthy by the reaper)'}`);
  const rung = readRung(s.node);
  const timeout = rung !== undefined ? repair?.ladder[rung.rung]?.timeoutSeconds : undefined;
  if (rung === undefined) lines.push('  current rung: none');
  else if (rung.state === 'rebooted') lines.push(`  current rung: ${rung.rung} (${rung.remedy}), rebooted at ${rung.at}${timeout !== undefined ? `; the next rung is due at ${rfc3339Seconds(Date.parse(rung.at) + timeout * 1000)} if the node is still unhealthy` : ''}`);
  else lines.push(`  current rung: ${rung.rung} (${rung.remedy}), requested at ${rung.at}`);
  for (const nm of s.requests) lines.push(`  request ${maintenanceKey(nm)} of ${nm.spec.requestorID}: phase ${maintenancePhase(nm) || 'new'}${nm.metadata.deletionTimestamp ? ' (deleting)' : ''}`);
  if (repair !== undefined && since !== undefined && rung?.state !== 'requested' && s.reaper.kind === 'enabled') {
    // A validation running on the node decides first (shared/reaper/validation-wait.ts): no rung until its outcome.
    const validating = validationRunning(s.node, requestAttempts(s.requests));
    const choice = chooseRung(repair, s.node, nodeFacts(s.node, now, s.reaper.config.zoneLabel), now);
    const verdict = validating ?? (choice.kind === 'wait' ? choice.why : `rung ${choice.rung} (${choice.remedy})${choice.escalated !== undefined ? `: ${choice.escalated}` : ''}`);
    lines.push(`  the ladder now: ${verdict}${validating !== undefined ? '' : " (the reaper's gates and the pool cap apply first)"}`);
  }
  const windowSeconds = repair?.historyWindowSeconds ?? 604800;
  const history = readHistory(s.node, now, windowSeconds);
  const offender = repair !== undefined && history.length > repair.repeatLimit;
  lines.push(`  history: ${history.length} repair${history.length === 1 ? '' : 's'} in the last ${windowSeconds} s${repair !== undefined ? ` (repeatLimit ${repair.repeatLimit}${offender ? ': a repeat offender, reboot rungs are skipped' : ''})` : ''}`);
  if (history.length > 0) lines.push(...describeHistory(history).split(', ').map((e) => `    ${e}`));
  const decision = s.node.metadata?.annotations?.[ANNOTATION_REAPER_DECISION];
  if (decision !== undefined) lines.push(`  reaper decision: ${decision}`);
  return lines;
}
