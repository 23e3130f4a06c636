// Pins the upstream NVIDIA maintenance operator release that bench/peers runs as a peer (issue 11).
// Holds no upstream source; testbed/peers/build-nvidia.ts builds cmd/maintenance-manager of this
// version into ~/.cache/kmaint-testbed/peers/ and applies the CRDs of the same version at run time.
// The root module replaces its api module with ./api, so the api module is pinned here as well.
module kmaint.local/testbed/peers/nvidia

go 1.25.0

require (
	github.com/Mellanox/maintenance-operator v0.3.0
	github.com/Mellanox/maintenance-operator/api v0.3.0
)

tool github.com/Mellanox/maintenance-operator/cmd/maintenance-manager
