// Sources are ES modules written in TypeScript; Node 24 runs them directly
// (type stripping), and @swc/jest does the same job under Jest.
// Unit tests only: integration tests have their own config (jest.integration.config.js).
export const base = {
  rootDir: import.meta.dirname,
  extensionsToTreatAsEsm: [".ts"],
  transform: {
    "^.+\\.ts$": [
      "@swc/jest",
      { jsc: { target: "es2024", parser: { syntax: "typescript" } }, module: { type: "es6" } },
    ],
    // Why: test/support/jest-local-globals.js.
    "/node_modules/tweetnacl/.+\\.js$": "<rootDir>/test/support/jest-local-globals.js",
  },
  transformIgnorePatterns: ["/node_modules/(?!tweetnacl/)"],
  testEnvironment: "node",
  // npm run build's output (and the image test's) is the same code bundled: not for Jest to index.
  modulePathIgnorePatterns: ["<rootDir>/dist/"],
};

export default {
  ...base,
  displayName: "unit",
  // Jest's 5 s default is met by module loading and key generation alone when the 2-core machine
  // is busy (load 18 measured): a unit test that hangs still fails, later.
  testTimeout: 30_000,
  testMatch: ["<rootDir>/{functions,shared,test/unit,scripts}/**/*.test.ts"],
};
