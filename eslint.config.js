import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".cache/", "crds/", "chart/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // The layers: shared/ is the runtime and libraries under every function and never reaches
  // up into them; only bin/ (and tests) wire the function catalog into the entry points.
  {
    files: ["shared/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "(^|/)functions/",
              message: "shared/ never imports functions/: take what is needed as a parameter (bin/ wires the catalog).",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["functions/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "(^|/)catalog\\.ts$", message: "only bin/ wires functions/catalog.ts into the entry points." },
          ],
        },
      ],
    },
  },
);
