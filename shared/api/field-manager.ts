// The field manager kmaint's writes carry (shared/kube/client.ts's default). The API server names it in a Node's
// metadata.managedFields as the owner of what kmaint last set — spec.unschedulable above all: cleanup and the orphan
// sweep lift only a cordon kmaint's own write set (shared/lifecycle/cordon-owner.ts).
export const KMAINT_FIELD_MANAGER = 'kmaint';
