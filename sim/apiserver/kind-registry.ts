// Which kinds are served right now: the built-in table plus the kinds of every established CRD.
import { BUILTIN_KINDS, type KindInfo } from './kinds.ts';

function pathKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

export class KindRegistry {
  private readonly served = new Map<string, KindInfo>();
  private readonly byCrd = new Map<string, KindInfo[]>();

  /** `unserved`: built-in kinds left out, as `group/resource` (a cluster without an API a feature gate serves). */
  constructor(unserved: ReadonlySet<string> = new Set()) {
    for (const k of BUILTIN_KINDS) if (!unserved.has(`${k.group}/${k.resource}`)) this.served.set(pathKey(k.group, k.version, k.resource), k);
  }

  /** The kind served at /apis/{group}/{version}/{resource} (group '' = /api/v1). */
  lookup(group: string, version: string, resource: string): KindInfo | undefined {
    return this.served.get(pathKey(group, version, resource));
  }

  /** Any served version of group/resource (for internal writes that do not care about the version). */
  anyVersion(group: string, resource: string): KindInfo | undefined {
    for (const k of this.served.values()) if (k.group === group && k.resource === resource) return k;
    return undefined;
  }

  all(): KindInfo[] {
    return [...this.served.values()];
  }

  /** Replaces what a CRD serves (created, updated or re-read). */
  setCustom(crdName: string, kinds: readonly KindInfo[]): void {
    this.removeCustom(crdName);
    for (const k of kinds) this.served.set(pathKey(k.group, k.version, k.resource), k);
    this.byCrd.set(crdName, [...kinds]);
  }

  removeCustom(crdName: string): KindInfo[] {
    const kinds = this.byCrd.get(crdName) ?? [];
    for (const k of kinds) this.served.delete(pathKey(k.group, k.version, k.resource));
    this.byCrd.delete(crdName);
    return kinds;
  }

  customKinds(crdName: string): readonly KindInfo[] {
    return this.byCrd.get(crdName) ?? [];
  }
}
