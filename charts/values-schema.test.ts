// charts/kmaint/values.schema.json with a real helm (testbed/helm.ts): `helm template` refuses an unknown key or a value
// of the wrong type at every level the chart defines, with Helm's schema message; the defaults and every example values
// file pass. Helm applies the same schema on install, upgrade and lint.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { helmBinary, helmIsCurrent, runHelm } from '../testbed/helm.ts';

const CHART = 'charts/kmaint';
const EXAMPLES = join(CHART, 'examples');
const KUBE_VERSION = '1.35.4';
/** What the chart writes itself into the MaintenanceOperatorConfig spec; extraSpec carries the CRD's other fields. */
const CHART_CONFIG_KEYS = ['logLevel', 'maxNodeMaintenanceTimeSeconds', 'maxParallelOperations', 'maxUnavailable'];

const HELM_BUILT = helmIsCurrent();
if (!HELM_BUILT) {
  // Counted by vitest as skipped, and said here so that nobody takes a green run for a tested one.
  process.stderr.write(`[charts/values-schema] NOT RUN: the schema tests need helm (${helmBinary()}): npm run testbed:build builds it; they are counted as skipped\n`);
}

const template = (args: string[]): ReturnType<typeof runHelm> => runHelm(['template', 'kmaint', CHART, '--namespace', 'kmaint', '--kube-version', KUBE_VERSION, ...args]);

/** Helm's refusal of values that do not meet the schema, one line per violation. */
const refusal = (...violations: string[]): string =>
  ['Error: values don\'t meet the specifications of the schema(s) in the following chart(s):', 'kmaint:', ...violations.map((v) => `- ${v}`)].join('\n');

describe('the values schema of charts/kmaint', () => {
  it('lets extraSpec carry exactly the MaintenanceOperatorConfig spec fields the chart does not write itself (the CRD\'s, by name)', () => {
    const crd = parse(readFileSync('crds/maintenanceoperatorconfigs.maintenance.nvidia.com.yaml', 'utf8')) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }> };
    };
    const crdKeys = Object.keys(crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties ?? {}).sort();
    const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as {
      properties: { operatorConfig: { properties: Record<string, unknown> & { extraSpec: { properties: Record<string, unknown> } } } };
    };
    expect(Object.keys(schema.properties.operatorConfig.properties.extraSpec.properties).sort()).toEqual(crdKeys.filter((k) => !CHART_CONFIG_KEYS.includes(k)));
    expect(Object.keys(schema.properties.operatorConfig.properties).filter((k) => k !== 'deploy' && k !== 'extraSpec').sort()).toEqual(CHART_CONFIG_KEYS);
  });
});

// Each case is one helm process that shares nothing with the others: they run side by side (a file under 2 s).
describe.skipIf(!HELM_BUILT).concurrent('helm template against charts/kmaint/values.schema.json', () => {
  // Each row: --set-json pairs and Helm's message; the exit code is 1 in each.
  it.for<{ rule: string; set: string[]; message: string }>([
    { rule: 'an unknown top-level key (a typo of operator)', set: ['operater={}'], message: 'at \'\': additional properties \'operater\' not allowed' },
    { rule: 'an unknown key one level down', set: ['cronJobs.scedule="*/5 * * * *"'], message: 'at \'/cronJobs\': additional properties \'scedule\' not allowed' },
    { rule: 'an unknown key two levels down', set: ['operator.image.tags="0.1.0"'], message: 'at \'/operator/image\': additional properties \'tags\' not allowed' },
    { rule: 'a string where a boolean is wanted', set: ['cronJobs.suspend="yes"'], message: 'at \'/cronJobs/suspend\': got string, want boolean' },
    { rule: 'a string where an integer is wanted', set: ['cronJobs.activeDeadlineSeconds="100"'], message: 'at \'/cronJobs/activeDeadlineSeconds\': got string, want integer' },
    { rule: 'a value outside an enum', set: ['operatorConfig.logLevel="warn"'], message: 'at \'/operatorConfig/logLevel\': value must be one of \'debug\', \'info\', \'error\'' },
    { rule: 'a pass function kmaint does not have', set: ['cronJobs.functions=["scheduler","drainr"]'], message: 'at \'/cronJobs/functions/1\': value must be one of \'scheduler\', \'drainer\', \'cleanup\', \'reaper\', \'all\'' },
    { rule: 'no pass function at all', set: ['cronJobs.functions=[]'], message: 'at \'/cronJobs/functions\': minItems: got 0, want 1' },
    { rule: 'a wake mode kmaint run does not have', set: ['cronJobs.wake="inotify"'], message: 'at \'/cronJobs/wake\': value must be one of \'poll\', \'watch\'' },
    { rule: 'a digest that is not sha256:<64 hex>', set: ['operator.image.digest="sha256:abc"'], message: 'at \'/operator/image/digest\': \'sha256:abc\' does not match pattern \'^(sha256:[a-f0-9]{64})?$\'' },
    { rule: 'per-function resources for a function kmaint does not have', set: ['cronJobs.resources={"drainr":{}}'], message: 'at \'/cronJobs/resources\': additional properties \'drainr\' not allowed' },
    { rule: 'a timeout kmaint run cannot parse', set: ['cronJobs.timeout="50 seconds"'], message: 'at \'/cronJobs/timeout\': \'50 seconds\' does not match pattern \'^[0-9]+([.][0-9]+)?(ms|s|m|h)?$\'' },
    { rule: 'a CEL duration with a unit CEL lacks', set: ['admissionPolicy.notBeforeHorizon="30d"'], message: 'at \'/admissionPolicy/notBeforeHorizon\': \'30d\' does not match pattern \'^([0-9]+([.][0-9]+)?(h|m|s|ms|us|ns))+$\'' },
    { rule: 'a percentage that is not one', set: ['operatorConfig.maxUnavailable="10 percent"'], message: 'at \'/operatorConfig/maxUnavailable\': \'oneOf\' failed, none matched\n  - at \'/operatorConfig/maxUnavailable\': got string, want integer\n  - at \'/operatorConfig/maxUnavailable\': \'10 percent\' does not match pattern \'^[0-9]+%$\'\n  - at \'/operatorConfig/maxUnavailable\': got string, want null' },
    { rule: 'a field the MaintenanceOperatorConfig does not have, in extraSpec', set: ['operatorConfig.extraSpec={"zoneLable":"topology.kubernetes.io/zone"}'], message: 'at \'/operatorConfig/extraSpec\': additional properties \'zoneLable\' not allowed' },
    { rule: 'a memory quantity with a unit Kubernetes lacks', set: ['operator.resources.limits.memory="384MB"'], message: 'at \'/operator/resources/limits/memory\': \'oneOf\' failed, none matched\n  - at \'/operator/resources/limits/memory\': \'384MB\' does not match pattern \'^[+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+|[munkMGTPE]|[KMGTPE]i)?$\'\n  - at \'/operator/resources/limits/memory\': got string, want number' },
    { rule: 'a typo in a switch of an optional object', set: ['metrics.prometheusRule.enable=true'], message: 'at \'/metrics/prometheusRule\': additional properties \'enable\' not allowed' },
    { rule: 'a Pushgateway address without its scheme', set: ['metrics.pushgatewayUrl="pushgateway.monitoring.svc:9091"'], message: 'at \'/metrics/pushgatewayUrl\': \'pushgateway.monitoring.svc:9091\' does not match pattern \'^(https?://\\\\S+)?$\'' /* Helm prints the backslash doubled */ },
    { rule: 'the OpenShift switch as a string', set: ['openshift={"enabled":"true"}'], message: 'at \'/openshift/enabled\': got string, want boolean' },
  ])('refuses $rule', async ({ set, message }, { expect }) => {
    const r = await template(set.flatMap((s) => ['--set-json', s]));
    expect([r.code, r.stdout, r.stderr.trim()]).toEqual([1, '', refusal(message)]);
  });

  // The default values name no image repository: the chart itself refuses them (charts/chart.test.ts), not the schema.
  it('accepts the default values with an image repository', async ({ expect }) => {
    const r = await template(['--set', 'operator.image.repository=registry.example.com']);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml')).sort();
  it.for(examples)('accepts the example values file examples/%s', async (file, { expect }) => {
    const r = await template(['--set', 'operator.image.repository=registry.example.com', '-f', join(EXAMPLES, file)]);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });
});
