import { readFileSync } from "node:fs";

/**
 * The operator's version, from the package.json beside the checkout or the image's bundle (both
 * two folders up from this module, see scripts/build.ts).
 */
export function operatorVersion(): string {
  const url = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
