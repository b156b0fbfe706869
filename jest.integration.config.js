// Integration and end-to-end tests against the real control plane that
// test/harness starts once per run (etcd, kube-apiserver, controller-manager,
// the local kubelet and nats-server 2.15).
import { base } from "./jest.config.js";

export default {
  ...base,
  displayName: "integration",
  testMatch: ["<rootDir>/test/integration/**/*.test.ts"],
  globalSetup: "<rootDir>/test/harness/jest-global-setup.ts",
  globalTeardown: "<rootDir>/test/harness/jest-global-teardown.ts",
  testTimeout: 120_000,
  // NATS clients of code under test may hold sockets past the last test; the
  // global teardown stops every server, so waiting on them would only hang CI.
  forceExit: true,
};
