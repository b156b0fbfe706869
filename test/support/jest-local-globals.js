// A Jest transform for hot pure-JS code in node_modules (tweetnacl's ed25519, under every
// nkey and JWT signature). Jest runs modules inside a vm context, whose global object answers
// each lookup through an interceptor V8 cannot cache: tweetnacl, which calls `new
// Float64Array(16)` and `Math.floor` in its inner loops, signs about 10x slower there than in
// plain Node (20 signatures: 620 ms against 70 ms). Binding those globals as locals once, on
// the module's first line so line numbers stay, gives the plain-Node speed back.
import { createHash } from "node:crypto";

const globals = ["Float64Array", "Int32Array", "Uint16Array", "Uint8Array", "Math", "Error", "TypeError"];
const prefix = `var ${globals.map((name) => `${name} = globalThis.${name}`).join(", ")};`;

export default {
  // Without its own key Jest caches the output by the source file alone, so a change to the
  // prefix above would be served stale until `jest --clearCache`.
  getCacheKey(source, filename, { configString }) {
    return createHash("sha1")
      .update(prefix)
      .update("\0")
      .update(source)
      .update("\0")
      .update(filename)
      .update("\0")
      .update(configString)
      .digest("hex");
  },
  process(source) {
    return { code: prefix + source };
  },
};
