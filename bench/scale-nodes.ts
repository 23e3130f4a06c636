// Node objects shaped like a real GPU node (8-GPU HGX host on EKS with the GPU operator, Node Feature Discovery and
// node-problem-detector): ~55 labels, ~12 annotations, 20 images, 14 conditions, extended resources. Only the name,
// index-derived IDs and addresses vary; the shape is what a LIST of a GPU fleet serialises. No kubelet backs them:
// the scale benchmark keeps them Ready by giving the node lifecycle controller a grace period longer than the run.
import { rfc3339Seconds } from '../shared/api/index.ts';

const GPU_PRODUCTS = ['NVIDIA-H100-80GB-HBM3', 'NVIDIA-H200', 'NVIDIA-A100-SXM4-80GB', 'NVIDIA-B200'] as const;
const ZONES = ['us-east-2a', 'us-east-2b', 'us-east-2c'] as const;
/** Images a node reports: the kubelet keeps up to 50 (nodeStatusMaxImages); 20 keeps the object near 13 KB with managedFields. */
const IMAGES = 20;

/** Node name of index i: varied like EKS's ip-based names, unique for i < 2^24. */
export function nodeName(i: number): string {
  return `ip-10-${(i >> 16) & 255}-${(i >> 8) & 255}-${i & 255}.us-east-2.compute.internal`;
}

function images(i: number): Array<{ names: string[]; sizeBytes: number }> {
  const repos = [
    'nvcr.io/nvidia/k8s-device-plugin', 'nvcr.io/nvidia/gpu-operator', 'nvcr.io/nvidia/k8s/dcgm-exporter', 'nvcr.io/nvidia/cloud-native/gpu-operator-validator',
    'nvcr.io/nvidia/k8s/container-toolkit', 'nvcr.io/nvidia/driver', 'nvcr.io/nvidia/cloud-native/k8s-mig-manager', 'nvcr.io/nvidia/pytorch', 'nvcr.io/nvidia/tritonserver',
    'nvcr.io/nvidia/nemo', 'nvcr.io/nvidia/cuda', 'registry.k8s.io/nfd/node-feature-discovery', 'registry.k8s.io/node-problem-detector/node-problem-detector',
    '602401143452.dkr.ecr.us-east-2.amazonaws.com/amazon-k8s-cni', '602401143452.dkr.ecr.us-east-2.amazonaws.com/amazon-k8s-cni-init', '602401143452.dkr.ecr.us-east-2.amazonaws.com/eks/kube-proxy',
    '602401143452.dkr.ecr.us-east-2.amazonaws.com/eks/pause', '602401143452.dkr.ecr.us-east-2.amazonaws.com/eks/aws-ebs-csi-driver', '602401143452.dkr.ecr.us-east-2.amazonaws.com/eks/csi-node-driver-registrar',
    '602401143452.dkr.ecr.us-east-2.amazonaws.com/eks/livenessprobe', 'public.ecr.aws/efa-device-plugin/aws-efa-k8s-device-plugin', 'quay.io/prometheus/node-exporter',
    'docker.io/fluent/fluent-bit', 'docker.io/grafana/promtail', 'ghcr.io/nvidia/k8s-dra-driver-gpu', 'docker.io/kubeflow/training-operator', 'docker.io/rayproject/ray-ml',
    'nvcr.io/nvidia/nemo-microservices/nemo-customizer', 'docker.io/library/busybox', 'ghcr.io/kmaint/agent', 'docker.io/volcanosh/vc-scheduler', 'quay.io/jetstack/cert-manager-controller',
    'registry.k8s.io/sig-storage/local-volume-provisioner', 'docker.io/calico/node', 'nvcr.io/nvidia/mellanox/network-operator', 'nvcr.io/nvidia/mellanox/rdma-shared-dev-plugin',
    'nvcr.io/nvidia/mellanox/ib-kubernetes', 'nvcr.io/nvidia/mellanox/ofed-driver', 'docker.io/datadog/agent', 'docker.io/bitnami/kubectl',
  ];
  return repos.slice(0, IMAGES).map((repo, k) => {
    const digest = (((i + 1) * 2654435761 + k * 40503) >>> 0).toString(16).padStart(8, '0').repeat(8);
    return { names: [`${repo}@sha256:${digest}`, `${repo}:v${1 + (k % 5)}.${(k * 7) % 20}.${k % 3}`], sizeBytes: 50_000_000 + k * 97_000_123 };
  });
}

/** A Ready GPU node with the shape of a real one; `now` stamps its conditions. */
/** A Node as the API server's JSON takes it (dates as RFC 3339 strings, which client-node's V1Node types as Date). */
export interface NodeJson {
  apiVersion: 'v1';
  kind: 'Node';
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: { providerID: string };
  status: Record<string, unknown>;
}

export function gpuNode(i: number, now: Date): NodeJson {
  const name = nodeName(i);
  const zone = ZONES[i % ZONES.length] as string;
  const product = GPU_PRODUCTS[i % GPU_PRODUCTS.length] as string;
  const instanceId = `i-0${(((i + 7) * 2246822519) >>> 0).toString(16).padStart(8, '0')}${(i % 4096).toString(16).padStart(3, '0')}ab`;
  const ip = name.slice(3, name.indexOf('.')).replaceAll('-', '.');
  const t = rfc3339Seconds(now);
  const labels: Record<string, string> = {
    'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name, 'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/instance-type': 'p5.48xlarge', 'node.kubernetes.io/instance-type': 'p5.48xlarge', 'topology.kubernetes.io/region': 'us-east-2', 'topology.kubernetes.io/zone': zone,
    'failure-domain.beta.kubernetes.io/region': 'us-east-2', 'failure-domain.beta.kubernetes.io/zone': zone, 'topology.k8s.aws/zone-id': `use2-az${1 + (i % 3)}`,
    'topology.k8s.aws/network-node-layer-1': `nn-${(i >> 10).toString(16).padStart(17, '0')}`, 'topology.k8s.aws/network-node-layer-2': `nn-${(i >> 6).toString(16).padStart(17, '0')}`,
    'topology.k8s.aws/network-node-layer-3': `nn-${(i >> 3).toString(16).padStart(17, '0')}`, 'eks.amazonaws.com/nodegroup': `gpu-${zone}-${i % 8}`, 'eks.amazonaws.com/capacityType': 'ON_DEMAND',
    'eks.amazonaws.com/nodegroup-image': 'ami-0abcdef1234567890', 'eks.amazonaws.com/sourceLaunchTemplateId': 'lt-0123456789abcdef0', 'eks.amazonaws.com/sourceLaunchTemplateVersion': '7',
    'k8s.io/cloud-provider-aws': '8f1c4d3e2b1a09f8e7d6c5b4a3928170', 'vpc.amazonaws.com/efa.present': 'true', 'nvidia.com/gpu.present': 'true', 'nvidia.com/gpu.product': product,
    'nvidia.com/gpu.count': '8', 'nvidia.com/gpu.memory': '81559', 'nvidia.com/gpu.family': 'hopper', 'nvidia.com/gpu.machine': 'p5.48xlarge', 'nvidia.com/gpu.compute.major': '9',
    'nvidia.com/gpu.compute.minor': '0', 'nvidia.com/cuda.driver.major': '570', 'nvidia.com/cuda.driver.minor': '124', 'nvidia.com/cuda.driver.rev': '06', 'nvidia.com/cuda.runtime.major': '12',
    'nvidia.com/cuda.runtime.minor': '8', 'nvidia.com/gfd.timestamp': String(1_760_000_000 + i), 'nvidia.com/gpu.deploy.container-toolkit': 'true', 'nvidia.com/gpu.deploy.dcgm': 'true',
    'nvidia.com/gpu.deploy.dcgm-exporter': 'true', 'nvidia.com/gpu.deploy.device-plugin': 'true', 'nvidia.com/gpu.deploy.driver': 'pre-installed', 'nvidia.com/gpu.deploy.gpu-feature-discovery': 'true',
    'nvidia.com/gpu.deploy.node-status-exporter': 'true', 'nvidia.com/gpu.deploy.operator-validator': 'true', 'nvidia.com/mig.capable': 'true', 'nvidia.com/mig.config': 'all-disabled',
    'nvidia.com/mig.strategy': 'single', 'nvidia.com/gpu.replicas': '1', 'nvidia.com/gpu.sharing-strategy': 'none', 'feature.node.kubernetes.io/cpu-model.vendor_id': 'AMD',
    'feature.node.kubernetes.io/cpu-model.family': '25', 'feature.node.kubernetes.io/kernel-version.full': '6.1.112-124.190.amzn2023.x86_64', 'feature.node.kubernetes.io/pci-10de.present': 'true',
    'feature.node.kubernetes.io/pci-1d0f.present': 'true', 'feature.node.kubernetes.io/system-os_release.ID': 'amzn', 'feature.node.kubernetes.io/system-os_release.VERSION_ID': '2023',
    'feature.node.kubernetes.io/rdma.available': 'true', 'feature.node.kubernetes.io/cpu-cpuid.AVX512F': 'true', 'feature.node.kubernetes.io/memory-numa': 'true',
    'kmaint.io/pool': `rack-${Math.floor(i / 32)}`,
  };
  const annotations: Record<string, string> = {
    'alpha.kubernetes.io/provided-node-ip': ip, 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
    'csi.volume.kubernetes.io/nodeid': JSON.stringify({ 'ebs.csi.aws.com': instanceId, 'efs.csi.aws.com': instanceId, 'fsx.csi.aws.com': instanceId }),
    'nfd.node.kubernetes.io/feature-labels': 'cpu-cpuid.AVX512F,cpu-model.family,cpu-model.vendor_id,kernel-version.full,memory-numa,pci-10de.present,pci-1d0f.present,rdma.available,system-os_release.ID,system-os_release.VERSION_ID',
    'nfd.node.kubernetes.io/extended-resources': '', 'nfd.node.kubernetes.io/master.version': 'v0.17.3', 'nfd.node.kubernetes.io/worker.version': 'v0.17.3',
    'nvidia.com/gpu-driver-upgrade-enabled': 'true', 'nvidia.com/gpu-driver-upgrade-state': 'upgrade-done',
    'cluster-autoscaler.kubernetes.io/scale-down-disabled': 'true', 'karpenter.sh/managed-by': 'gpu-fleet',
  };
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, lastHeartbeatTime: t, lastTransitionTime: t });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels, annotations },
    spec: { providerID: `aws:///${zone}/${instanceId}` },
    status: {
      capacity: { cpu: '192', 'ephemeral-storage': '3750000000Ki', 'hugepages-1Gi': '0', 'hugepages-2Mi': '21Gi', memory: '2097152000Ki', pods: '737', 'nvidia.com/gpu': '8', 'vpc.amazonaws.com/efa': '32', 'rdma/rdma_shared_device_a': '63' },
      allocatable: { cpu: '191450m', 'ephemeral-storage': '3455187938918', 'hugepages-1Gi': '0', 'hugepages-2Mi': '21Gi', memory: '2072547328Ki', pods: '737', 'nvidia.com/gpu': '8', 'vpc.amazonaws.com/efa': '32', 'rdma/rdma_shared_device_a': '63' },
      conditions: [
        cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
        cond('KernelDeadlock', 'False', 'KernelHasNoDeadlock', 'kernel has no deadlock'),
        cond('ReadonlyFilesystem', 'False', 'FilesystemIsNotReadOnly', 'Filesystem is not read-only'),
        cond('FrequentKubeletRestart', 'False', 'NoFrequentKubeletRestart', 'kubelet is functioning properly'),
        cond('FrequentContainerdRestart', 'False', 'NoFrequentContainerdRestart', 'containerd is functioning properly'),
        cond('CorruptDockerOverlay2', 'False', 'NoCorruptDockerOverlay2', 'docker overlay2 is functioning properly'),
        cond('GpuXidError', 'False', 'NoXidErrors', 'no fatal Xid errors in the last 24h'),
        cond('GpuNvlinkError', 'False', 'NvlinkHealthy', 'all NVLink lanes up'),
        cond('GpuEccDbe', 'False', 'NoDoubleBitErrors', 'no uncorrectable ECC errors'),
        cond('EfaHealthy', 'True', 'EfaDevicesUp', '32 of 32 EFA devices up'),
        cond('NetworkUnavailable', 'False', 'RouteCreated', 'RouteController created a route'),
      ],
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'InternalDNS', address: name },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: instanceId.padEnd(32, '0').slice(0, 32), systemUUID: `ec2${instanceId.slice(2, 7)}-0000-4000-8000-${(i + 1).toString(16).padStart(12, '0')}`,
        bootID: `b${(i + 3).toString(16).padStart(7, '0')}-1111-4222-8333-444455556666`, kernelVersion: '6.1.112-124.190.amzn2023.x86_64', osImage: 'Amazon Linux 2023.6.20241010',
        containerRuntimeVersion: 'containerd://1.7.22', kubeletVersion: 'v1.33.5-eks-113cf36', kubeProxyVersion: 'v1.33.5-eks-113cf36', operatingSystem: 'linux', architecture: 'amd64',
      },
      images: images(i),
    },
  };
}
