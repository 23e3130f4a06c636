// Pins the kube-state-metrics release that test/kube-state-metrics.test.ts runs against the testbed with the chart's
// custom-resource-state config (charts/kmaint/files/kube-state-metrics.yaml). Holds no upstream source;
// testbed/peers/build-kube-state-metrics.ts builds this version into ~/.cache/kmaint-testbed/peers/.
module kmaint.local/testbed/peers/kube-state-metrics

go 1.26.0

require k8s.io/kube-state-metrics/v2 v2.20.0
