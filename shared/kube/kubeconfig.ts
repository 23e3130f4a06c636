// Loading a kubeconfig: an explicit path, KUBECONFIG, in-cluster service account, or ~/.kube/config.
import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { KmaintError } from '../errors/index.ts';

export class KubeConfigError extends KmaintError {
  override name = 'KubeConfigError';
}

export function loadKubeConfig(opts: { path?: string; context?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  const path = opts.path ?? process.env['KUBECONFIG'];
  try {
    if (path) {
      if (!existsSync(path)) throw new KubeConfigError(`kubeconfig ${path} does not exist`);
      kc.loadFromFile(path);
    } else {
      kc.loadFromDefault();
    }
  } catch (err) {
    if (err instanceof KubeConfigError) throw err;
    throw new KubeConfigError(`loading kubeconfig ${path ?? '(default)'}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (opts.context) {
    if (!kc.getContexts().some((c) => c.name === opts.context)) throw new KubeConfigError(`kubeconfig has no context "${opts.context}"`);
    kc.setCurrentContext(opts.context);
  }
  if (!kc.getCurrentCluster()) throw new KubeConfigError(`kubeconfig ${path ?? '(default)'} names no cluster`);
  return kc;
}
