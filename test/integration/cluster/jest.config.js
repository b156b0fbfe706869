// Runs the NatsCluster integration tests on their own while the harness's global setup is not
// there: each test file then starts its own control plane (support/environment.ts). With the
// harness in place, use `npm run test:integration -- test/integration/cluster`.
import integration from "../../../jest.integration.config.js";

const { globalSetup: _setup, globalTeardown: _teardown, ...rest } = integration;

export default { ...rest, testMatch: ["<rootDir>/test/integration/cluster/**/*.test.ts"] };
