// Loading a kubeconfig: an explicit path, KUBECONFIG, in-cluster service account, or ~/.kube/config; or its text
// (from an environment variable or a secret), whose content never reaches an error message.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { errorMessage, KmaintError } from '../errors/index.ts';

export class KubeConfigError extends KmaintError {
  override name = 'KubeConfigError';
}

/** Switches to `context` when given; refuses a config that names no cluster. `source` names it in messages. */
function selectContext(kc: KubeConfig, source: string, context: string | undefined): KubeConfig {
  if (context) {
    if (!kc.getContexts().some((c) => c.name === context)) throw new KubeConfigError(`kubeconfig ${source} has no context "${context}"`);
    kc.setCurrentContext(context);
  }
  if (!kc.getCurrentCluster()) throw new KubeConfigError(`kubeconfig ${source} names no cluster`);
  return kc;
}

/** Where a pod's service account token is mounted: client-node's in-cluster configuration reads it. */
const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface LoadKubeConfigOptions {
  path?: string;
  context?: string;
  /**
   * The home directory whose .kube/config is the last resort.
   * @default os.homedir() ($HOME, as client-node reads it)
   */
  home?: string;
  /**
   * The service account token whose presence means "in a pod".
   * @default '/var/run/secrets/kubernetes.io/serviceaccount/token'
   */
  inClusterToken?: string;
  /**
   * Where KUBECONFIG is read.
   * @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
}

export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const kc = new KubeConfig();
  const path = opts.path ?? ((opts.env ?? process.env)['KUBECONFIG'] || undefined);
  try {
    if (path) {
      if (!existsSync(path)) throw new KubeConfigError(`kubeconfig ${path} does not exist`);
      kc.loadFromFile(path);
    } else {
      // With none of these, client-node falls back to http://localhost:8080 and the first request fails on TLS.
      const homeConfig = join(opts.home ?? homedir(), '.kube', 'config');
      if (!existsSync(homeConfig) && !existsSync(opts.inClusterToken ?? IN_CLUSTER_TOKEN)) {
        throw new KubeConfigError(`no kubeconfig: no --kubeconfig, KUBECONFIG is unset, ${homeConfig} does not exist, and this is not a pod (no service account token)`);
      }
      kc.loadFromDefault();
    }
  } catch (err) {
    if (err instanceof KubeConfigError) throw err;
    throw new KubeConfigError(`loading kubeconfig ${path ?? '(default)'}: ${errorMessage(err)}`, { cause: err });
  }
  return selectContext(kc, path ?? '(default)', opts.context);
}

/** The parts of a js-yaml YAMLException we may repeat: where, never what (its message quotes the text). */
interface YamlMark {
  line: number;
  column: number;
}

function yamlMarkOf(err: unknown): YamlMark | undefined {
  if (!(err instanceof Error) || err.name !== 'YAMLException') return undefined;
  const mark = (err as { mark?: { line?: unknown; column?: unknown } }).mark;
  return typeof mark?.line === 'number' && typeof mark.column === 'number' ? { line: mark.line, column: mark.column } : { line: -1, column: -1 };
}

/**
 * The YAML parser's error, kept as the cause, with every copy of the text it quotes removed in place: its message and
 * stack (which quote the offending lines), and its mark's buffer and snippet (the whole text, and those lines). What
 * stays is its name, its reason ("bad indentation of a mapping entry") and its position.
 */
function withoutQuotedText(err: unknown, where: string): unknown {
  if (!(err instanceof Error)) return err;
  const parsed = err as Error & { reason?: unknown; mark?: unknown };
  parsed.message = `${typeof parsed.reason === 'string' ? parsed.reason : 'syntax error'}${where}`;
  parsed.stack = `${parsed.name}: ${parsed.message}`;
  if (typeof parsed.mark === 'object' && parsed.mark !== null) {
    const mark = parsed.mark as Record<string, unknown>;
    delete mark['buffer'];
    delete mark['snippet'];
  }
  return parsed;
}

/**
 * A kubeconfig from its YAML or JSON text. `source` says where the text came from ("from KMAINT_KUBECONFIG",
 * "from secret arn:..."). The text may hold credentials, so a syntax error reports only its position, and the
 * parser's error is kept as `cause` with the text it quotes taken out (withoutQuotedText).
 */
export function kubeConfigFromText(text: string, opts: { source: string; context?: string }): KubeConfig {
  const kc = new KubeConfig();
  if (text.trim() === '') throw new KubeConfigError(`kubeconfig ${opts.source} is empty`);
  try {
    kc.loadFromString(text);
  } catch (err) {
    const mark = yamlMarkOf(err);
    if (mark) {
      const where = mark.line >= 0 ? ` (line ${mark.line + 1}, column ${mark.column + 1})` : '';
      throw new KubeConfigError(`kubeconfig ${opts.source} is not valid YAML${where}`, { cause: withoutQuotedText(err, where) });
    }
    // client-node's structural errors name fields and indices only ("clusters[0].cluster is missing").
    throw new KubeConfigError(`kubeconfig ${opts.source}: ${errorMessage(err)}`, { cause: err });
  }
  if (kc.getContexts().length === 0 && kc.getClusters().length === 0) throw new KubeConfigError(`kubeconfig ${opts.source} is not a kubeconfig (no clusters, no contexts)`);
  return selectContext(kc, opts.source, opts.context);
}
