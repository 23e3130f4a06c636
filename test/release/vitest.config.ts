// npm run test:release: the whole release (npm run release) against a loopback registry, checked from outside. Not in
// npm test: the first run builds the arm64 rootfs and cosign (~10 min); cached, it takes about 100 s (98 s measured).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'release',
    include: ['test/release/*.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
  },
});
