// Sources are ES modules written in TypeScript; Node 24 runs them directly
// (type stripping), and @swc/jest does the same job under Jest.
const swc = ["@swc/jest", { jsc: { target: "es2024", parser: { syntax: "typescript" } }, module: { type: "es6" } }];

const base = {
  extensionsToTreatAsEsm: [".ts"],
  transform: { "^.+\\.ts$": swc },
  testEnvironment: "node",
};

export default {
  projects: [
    { ...base, displayName: "unit", testMatch: ["<rootDir>/{functions,shared,test/unit}/**/*.test.ts"] },
    {
      ...base,
      displayName: "integration",
      testMatch: ["<rootDir>/test/integration/**/*.test.ts"],
      globalSetup: "<rootDir>/test/harness/jest-global-setup.ts",
      globalTeardown: "<rootDir>/test/harness/jest-global-teardown.ts",
    },
  ],
};
