// The version as kmaint reports it: package.json's, here read at run time (no bundle defines it under vitest).
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { kmaintVersion, renderVersionText, versionInfo } from './version.ts';

it('kmaintVersion reads package.json when no bundle stamped it', () => {
  expect(kmaintVersion()).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
});

it('versionInfo names the API versions served; the text form puts one per line', () => {
  const info = versionInfo('1.2.3');
  expect(info).toEqual({
    version: '1.2.3',
    apis: [
      { groupVersion: 'maintenance.nvidia.com/v1alpha1', kinds: ['NodeMaintenance', 'MaintenanceOperatorConfig'] },
      { groupVersion: 'kmaint.io/v1alpha1', kinds: ['ClusterSnapshot'] },
    ],
  });
  expect(renderVersionText(info)).toBe('kmaint 1.2.3\n  serves maintenance.nvidia.com/v1alpha1: NodeMaintenance, MaintenanceOperatorConfig\n  serves kmaint.io/v1alpha1: ClusterSnapshot\n');
});
