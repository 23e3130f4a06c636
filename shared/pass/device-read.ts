// The scheduler pass's read for device requests (issue 45): only while one waits for admission, whether the cluster
// serves DeviceTaintRules (a LIST that answers 404 in every version: it does not) and the ResourceSlices' devices.
import { isUnscheduled } from '../api/index.ts';
import { errorMessage } from '../errors/index.ts';
import { KubeRequestError } from '../kube/index.ts';
import { buildDeviceView, isDeviceRequest, type DeviceView } from '../devices/index.ts';
import type { PassOptions } from './options.ts';
import type { BaseSnapshot } from './snapshot.ts';

/**
 * undefined when no device request waits. A 403 (the opt-in ClusterRole kmaint-devices not bound) is an answer the
 * device requests are refused by; any other failed LIST is thrown: the pass fails and is retried, as for any read.
 */
export async function readDevices(opts: Pick<PassOptions, 'client'>, base: Pick<BaseSnapshot, 'maintenances'>): Promise<DeviceView | undefined> {
  if (!base.maintenances.some((nm) => isUnscheduled(nm) && isDeviceRequest(nm))) return undefined;
  try {
    const rules = await opts.client.listDeviceTaintRules();
    // Without the API no device request can be admitted: its devices need not be read.
    const slices = rules === undefined ? [] : await opts.client.listResourceSlices();
    return buildDeviceView(slices, rules?.version);
  } catch (err) {
    if (err instanceof KubeRequestError && err.status === 403) return { ...buildDeviceView([], undefined), forbidden: errorMessage(err) };
    throw err;
  }
}
