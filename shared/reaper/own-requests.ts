// Which NodeMaintenances are the reaper's and cloud events' own, and which joins the reaper made. A requestor can
// copy any string into its request (requestorID, labels, annotations, additionalRequestors) in any namespace it may
// write, so each is recognised by what a requestor cannot set: kmaint's namespace together with the name kmaint
// computes for the Node and kmaint's label and requestorID; a join by the reaper's own record on the Node.
import type { V1Node } from '@kubernetes/client-node';
import {
  ANNOTATION_REAPER_JOINED,
  ANNOTATION_REAPER_JOINED_PROVIDER_ID,
  CLOUD_EVENTS_REQUESTOR,
  REAPER_REQUESTOR,
  LABEL_CLOUD_EVENT,
  cloudEventRequestName,
  isReapRequest,
  reapRequestName,
} from '#api';
import type { NodeMaintenance } from '#api';

// The names are computed where every module that recognises kmaint's requests reads them (api/kmaint-requests.ts).
export { cloudEventRequestName, reapRequestName };

/** Made by kmaint: in kmaint's `namespace`, named `name(node)`, labelled `label: "true"`, with `requestorID` — all four. */
function madeByKmaint(nm: NodeMaintenance, namespace: string, name: (node: string) => string, label: string, requestorID: string): boolean {
  return (
    nm.metadata.namespace === namespace &&
    nm.metadata.name === name(nm.spec.nodeName) &&
    nm.metadata.labels?.[label] === 'true' &&
    nm.spec.requestorID === requestorID
  );
}

/** The reaper's own reap request: only these are terminated and deleted as the reaper's, and force-deleted after their timeout. */
export function isOwnReapRequest(nm: NodeMaintenance, namespace: string): boolean {
  return isReapRequest(nm, namespace);
}

/** A request cloud events filed: only these are updated and deleted by kmaint. */
export function isOwnCloudEventRequest(nm: NodeMaintenance, namespace: string): boolean {
  return madeByKmaint(nm, namespace, cloudEventRequestName, LABEL_CLOUD_EVENT, CLOUD_EVENTS_REQUESTOR);
}

/** The value of kmaint.io/reaper-joined for a join of `nm`: its namespace, name and uid (a recreated request is another). */
export function joinRecordOf(nm: NodeMaintenance): string {
  return `${nm.metadata.namespace ?? ''}/${nm.metadata.name}/${nm.metadata.uid ?? ''}`;
}

/** The join records on a Node: both keys, or undefined when the Node carries neither. */
export function joinRecordOn(node: V1Node | undefined): { request?: string; providerID?: string } | undefined {
  const a = node?.metadata?.annotations ?? {};
  const request = a[ANNOTATION_REAPER_JOINED];
  const providerID = a[ANNOTATION_REAPER_JOINED_PROVIDER_ID];
  if (request === undefined && providerID === undefined) return undefined;
  return { ...(request !== undefined ? { request } : {}), ...(providerID !== undefined ? { providerID } : {}) };
}

/** Another requestor's request listing reaper.kmaint.io among its additionalRequestors (anyone can add it). */
export function listsReaper(nm: NodeMaintenance): boolean {
  return (nm.spec.additionalRequestors ?? []).includes(REAPER_REQUESTOR);
}

/**
 * A join the reaper made: the request lists the reaper, and its Node records this very request (namespace, name,
 * uid) and still has the providerID recorded with it. Anything less is a request that merely names the reaper.
 */
export function isRecordedJoin(nm: NodeMaintenance, node: V1Node | undefined): boolean {
  if (!listsReaper(nm) || nm.metadata.uid === undefined) return false;
  const record = joinRecordOn(node);
  const providerID = node?.spec?.providerID ?? '';
  return record?.request === joinRecordOf(nm) && providerID !== '' && record.providerID === providerID;
}
