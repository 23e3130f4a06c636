// Public surface of shared/devices: device-scoped requests (issue 45): the kmaint.io/devices annotation, the scheduler's
// refusal, the DeviceTaintRules kmaint writes and the pods holding the devices.
export { buildDeviceView, deviceNameText, deviceRequestOf, deviceRequestRefusal, isDeviceRequest, MAX_DEVICES_PER_REQUEST, parseDeviceList } from './request.ts';
export type { DeviceName, DeviceRequest, DeviceView } from './request.ts';
export { deviceTaintRuleManifest, deviceTaintRuleNames, deviceTaintRuleWrites, recordedDeviceTaintRules } from './taint-rule.ts';
export { deviceRequestLines, holderText, podsHoldingDevices } from './holders.ts';
export type { DeviceHolder } from './holders.ts';
