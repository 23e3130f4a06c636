// The DeviceTaintRules of a device request: one per device (its deviceSelector names driver, pool and device, so it
// matches exactly that device), NoSchedule, named by the request's uid, labelled as kmaint's and owned by the Node.
import { ANNOTATION_DEVICE_RULE_REQUEST, ANNOTATION_DEVICE_TAINT_RULES, DEVICE_TAINT_KEY, DEVICE_TAINT_RULE_PREFIX, LABEL_DEVICE_MAINTENANCE, namespacedName, type NodeMaintenance } from '../api/index.ts';
import type { DeviceTaintRuleWrite } from '../api/index.ts';
import type { DeviceName } from './request.ts';

/** What every rule name of the request starts with: prefix + uid (or namespace-name) + `-`. */
function ruleNameStem(nm: NodeMaintenance): string {
  return `${DEVICE_TAINT_RULE_PREFIX}${nm.metadata.uid ?? `${nm.metadata.namespace ?? ''}-${nm.metadata.name}`}-`;
}

/** The rule names of a request's devices, in the order the request lists them: the stem + index. */
export function deviceTaintRuleNames(nm: NodeMaintenance, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${ruleNameStem(nm)}${i}`);
}

/**
 * The rules the request recorded (kmaint.io/device-taint-rules), or [] when it recorded none. Only names of this very
 * request (its uid) count: a record edited to name another request's rule never makes kmaint delete that rule.
 */
export function recordedDeviceTaintRules(nm: NodeMaintenance): string[] {
  const raw = nm.metadata.annotations?.[ANNOTATION_DEVICE_TAINT_RULES] ?? '';
  const stem = ruleNameStem(nm);
  return raw.split(',').map((s) => s.trim()).filter((s) => s.startsWith(stem) && /^\d+$/.test(s.slice(stem.length)));
}

/** The writes of a request's rules, owned by `node` when its uid is known. */
export function deviceTaintRuleWrites(nm: NodeMaintenance, devices: readonly DeviceName[], node: { name: string; uid: string | undefined }): DeviceTaintRuleWrite[] {
  const names = deviceTaintRuleNames(nm, devices.length);
  const request = namespacedName({ namespace: nm.metadata.namespace ?? '', name: nm.metadata.name });
  return devices.map((device, i) => ({ name: names[i] ?? '', device, request, ...(node.uid !== undefined ? { owner: { name: node.name, uid: node.uid } } : {}) }));
}

/** The DeviceTaintRule a write posts (its apiVersion is set by the client to the newest version served). */
export function deviceTaintRuleManifest(w: DeviceTaintRuleWrite): { metadata: { name: string } & Record<string, unknown> } & Record<string, unknown> {
  return {
    kind: 'DeviceTaintRule',
    metadata: {
      name: w.name,
      labels: { [LABEL_DEVICE_MAINTENANCE]: 'true' },
      annotations: { [ANNOTATION_DEVICE_RULE_REQUEST]: w.request },
      ...(w.owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: w.owner.name, uid: w.owner.uid }] } : {}),
    },
    spec: {
      deviceSelector: { driver: w.device.driver, pool: w.device.pool, device: w.device.device },
      taint: { key: DEVICE_TAINT_KEY, effect: 'NoSchedule' },
    },
  };
}
