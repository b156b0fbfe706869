import { readdirSync } from "node:fs";
import { join } from "node:path";
import js from "@eslint/js";
import tseslint from "typescript-eslint";

// Every function folder (and domain package, such as cluster/) under functions/.
const functionFolders = readdirSync(join(import.meta.dirname, "functions"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const catalogOnlyInBin = {
  regex: "(^|/)catalog\\.ts$",
  message: "only bin/ wires functions/catalog.ts into the entry points.",
};
// Functions declare the schedules they want in their outcome (shared/runtime/schedule.ts); only the
// runtime writes PingSources, so no path of a function can forget a drop.
// Functions reach shared/ through each package's front door (shared/<package>/index.ts), which says
// what a package offers them; its other modules are the package's own.
const sharedThroughFrontDoors = {
  regex: "^(\\.\\./)+shared/[a-z-]+/(?!index\\.ts$)",
  message: "a function imports shared/<package>/index.ts, the package's front door, not its modules.",
};
const schedulesOwnedByRuntime = {
  regex: "(^|/)shared/runtime/(schedule-source|schedule-keeper)\\.ts$",
  message:
    "functions do not keep or drop PingSources: return the schedule in the outcome (withSchedules, shared/runtime/schedule.ts).",
};

const sharedNeverImportsFunctions = {
  regex: "(^|/)functions/",
  message: "shared/ never imports functions/: take what is needed as a parameter (bin/ wires the catalog).",
};
const deployedCodeNeverImportsLocal = {
  regex: "^(\\.\\./)+local/",
  message: "shared/local/ is the in-process Knative stand-in: what a deployed pod runs does not import it.",
};

export default tseslint.config(
  { ignores: ["node_modules/", ".cache/", "crds/", "chart/", "coverage/", "dist/"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // The layers: shared/ is the runtime and libraries under every function and never reaches
  // up into them; only bin/ (and tests) wire the function catalog into the entry points. The
  // in-process Knative stand-in (shared/local/, behind `run` and `replay`) sits beside the
  // packages a deployed pod runs, which never import it.
  {
    files: ["shared/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [sharedNeverImportsFunctions] }] },
  },
  {
    files: ["shared/**/*.ts"],
    ignores: ["shared/local/**", "**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [sharedNeverImportsFunctions, deployedCodeNeverImportsLocal] }],
    },
  },
  {
    files: ["shared/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "ImportExpression > Literal[value=/(^|\\/)functions\\//]",
          message: "shared/ never imports functions/: take what is needed as a parameter (bin/ wires the catalog).",
        },
      ],
    },
  },
  // A function folder uses another folder's code only through that folder's public index.ts
  // (render-cluster and step-rollout reach the NatsCluster domain through cluster/index.ts), and
  // shared/ through its front doors; its tests may reach a shared module itself (a schema, decode).
  ...functionFolders.flatMap((folder) => {
    const otherFolders = {
      regex: `^(\\.\\./)+(${functionFolders.filter((other) => other !== folder).join("|")})/(?!index\\.ts$)`,
      message: "another function folder is used only through its public index.ts.",
    };
    return [
      {
        files: [`functions/${folder}/**/*.ts`],
        ignores: ["**/*.test.ts"],
        rules: {
          "no-restricted-imports": [
            "error",
            { patterns: [catalogOnlyInBin, schedulesOwnedByRuntime, sharedThroughFrontDoors, otherFolders] },
          ],
        },
      },
      {
        files: [`functions/${folder}/**/*.test.ts`],
        rules: {
          "no-restricted-imports": ["error", { patterns: [catalogOnlyInBin, schedulesOwnedByRuntime, otherFolders] }],
        },
      },
    ];
  }),
  {
    files: ["functions/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [catalogOnlyInBin, schedulesOwnedByRuntime] }] },
  },
  // Outside functions/ (bin, tests, bench), the NatsCluster domain too is reached only through its index.ts.
  {
    files: ["bin/**/*.ts", "test/**/*.ts", "bench/**/*.ts", "scripts/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)functions/cluster/(?!index\\.ts$)",
              message: "the NatsCluster domain (functions/cluster/) is used only through its index.ts.",
            },
          ],
        },
      ],
    },
  },
  // Decide is pure: plain data in and out. A decide file reads no clock, no network and no file,
  // and waits on nothing, so it is tested from fixtures and answers `preview` without servers.
  {
    files: ["functions/**/decide*.ts", "functions/**/decide/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(node:|@nats-io/(transport-node|jetstream|kv|obj)$)",
              allowTypeImports: true,
              message: "decide is pure: observe reads, act writes; a decide file takes their data, not their clients.",
            },
            {
              regex:
                "(^|/)shared/(kube|nats)/(index|client|transport|connection|pool|request|status|events|finalizers|guarded)\\.ts$",
              importNames: [
                "createKube",
                "createTransport",
                "createEventRecorder",
                "writeStatus",
                "addFinalizer",
                "removeFinalizer",
                "guarded",
                "connectWith",
                "connectTo",
                "connectWithInbox",
                "createConnectionPool",
                "resolveConnection",
                "jsRequest",
                "serverRequest",
                "systemRequest",
                "gatherReplies",
                "gatherRawReplies",
              ],
              allowTypeImports: true,
              message: "decide is pure: observe reads, act writes; a decide file takes their data, not their clients.",
            },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "AwaitExpression", message: "decide is pure: it waits on nothing." },
        { selector: ":function[async=true]", message: "decide is pure: it waits on nothing." },
        {
          selector:
            "NewExpression[callee.name='Date'][arguments.length=0], CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: "decide is pure: the time is the `now` it is given.",
        },
      ],
    },
  },
);
