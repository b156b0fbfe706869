// CEL rule builders for JetStream immutability. Field-level transition rules
// run only when both the old and the new object set the field, which is the
// comparison the API promises ("compared only where both set it").
import type { CelRule } from "../common/fields.ts";

/** On the field itself: the value may not change. */
export const immutable = (field: string): CelRule => ({ rule: "self == oldSelf", message: `${field} is immutable` });

/** On a boolean field: once true it stays true. */
export const cannotUnset = (field: string): CelRule => ({
  rule: "self || !oldSelf",
  message: `${field} cannot be unset`,
});

/** On the spec: neither presence nor value may change. */
export const fixedOnceCreated = (field: string): CelRule => ({
  rule: `has(self.${field}) == has(oldSelf.${field}) && (!has(self.${field}) || self.${field} == oldSelf.${field})`,
  message: `${field} is immutable`,
});

/** On the spec: where both set the field, it may change only with recreateOnImmutableChange. */
export const immutableUnlessRecreate = (field: string, compare = (v: string) => v): CelRule => ({
  rule:
    `!has(self.${field}) || !has(oldSelf.${field}) || ${compare(`self.${field}`)} == ${compare(`oldSelf.${field}`)} || ` +
    "(has(self.recreateOnImmutableChange) && self.recreateOnImmutableChange)",
  message: `${field} is immutable unless recreateOnImmutableChange is set`,
});

const effectiveName = (side: "self" | "oldSelf") =>
  `(has(${side}.spec.name) ? ${side}.spec.name : ${side}.metadata.name)`;

/** On the whole object: the server-side name (spec.name, else metadata.name) may not change. */
export const serverNameImmutable = (what: "stream" | "bucket" | "consumer"): CelRule => ({
  rule: `${effectiveName("self")} == ${effectiveName("oldSelf")}`,
  message: `the ${what} name is immutable`,
});
