// The JetStream integration tests without the harness's global setup: each
// test file then starts its own API server (support/environment.ts). The
// usual way is `npm run test:integration -- test/integration/jetstream`
// (NATS_OPERATOR_HARNESS_PROFILE=apiserver is enough for these tests).
import integration from "../../../jest.integration.config.js";

const { globalSetup: _setup, globalTeardown: _teardown, ...rest } = integration;

export default { ...rest, testMatch: ["<rootDir>/test/integration/jetstream/**/*.test.ts"] };
