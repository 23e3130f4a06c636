// npm run test:release: the whole release (npm run release) against a loopback registry, checked from outside. Not in
// npm test: the first run builds the arm64 rootfs and cosign (here 9 and 42 min on a loaded machine); cached, 98 s.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'release',
    include: ['test/release/*.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 1_800_000,
  },
});
