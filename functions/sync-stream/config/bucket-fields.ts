// Key-value and object-store buckets as the streams that back them. The
// templates follow what the NATS clients create: the spec fields of the
// bucket plus the stream settings that make the stream a bucket.
import {
  duration,
  field,
  isZero,
  quantity,
  struct,
  wireToSpec,
  specToWire,
  type Field,
  type Spec,
  type Wire,
} from "./fields.ts";
import { placementFields, republishFields, storage, streamSourceFields } from "./stream-fields.ts";

export const kvStreamPrefix = "KV_";
export const objectStreamPrefix = "OBJ_";
export const bucketNamePattern = /^[A-Za-z0-9_-]+$/;

const s2 = {
  toWire: (v: unknown) => (v === true ? "s2" : "none"),
  toSpec: (v: unknown) => (v === "s2" ? true : undefined),
};
/** Limits of a bucket: values ≤ 0 mean unset. */
const positive = (codec = { toWire: (v: unknown) => v, toSpec: (v: unknown) => v }) => ({
  toWire: codec.toWire,
  toSpec: (v: unknown) => (typeof v === "number" && v > 0 ? codec.toSpec(v) : undefined),
});

const commonBucketFields: readonly Field[] = [
  field("description"),
  field("maxBytes", "max_bytes", positive(quantity)),
  field("ttl", "max_age", duration),
  field("storage", "storage", storage),
  field("replicas", "num_replicas"),
  field("placement", "placement", struct(placementFields)),
  field("compression", "compression", s2),
];

export const keyValueFields: readonly Field[] = [
  ...commonBucketFields,
  field("history", "max_msgs_per_subject", positive()),
  field("maxValueSize", "max_msg_size", positive(quantity)),
  field("limitMarkerTTL", "subject_delete_marker_ttl", duration),
  field("republish", "republish", struct(republishFields)),
];

export const objectStoreFields: readonly Field[] = commonBucketFields;

/** Stream keys a bucket's spec can say something about (compared when the spec is silent). */
export const keyValueModelled = [...keyValueFields.map((f) => f.wire), "mirror", "sources", "allow_msg_ttl"];
export const objectStoreModelled = objectStoreFields.map((f) => f.wire);

export const kvSubject = (bucket: string) => `$KV.${bucket}.>`;
export const objectSubjects = (bucket: string) => [`$O.${bucket}.C.>`, `$O.${bucket}.M.>`];

const withPrefix = (name: string) => (name.startsWith(kvStreamPrefix) ? name : `${kvStreamPrefix}${name}`);
const withoutPrefix = (name: string) => (name.startsWith(kvStreamPrefix) ? name.slice(kvStreamPrefix.length) : name);

/** The stream config a key-value spec asks for. */
export function keyValueWire(bucket: string, spec: Spec): Wire {
  const wire: Wire = {
    ...specToWire(spec, keyValueFields),
    retention: "limits",
    discard: "new",
    allow_rollup_hdrs: true,
    allow_direct: true,
  };
  wire.max_msgs_per_subject ??= 1;
  if (wire.subject_delete_marker_ttl !== undefined) wire.allow_msg_ttl = true;
  const mirror = spec.mirror as Spec | undefined;
  const sources = spec.sources as Spec[] | undefined;
  if (mirror) {
    const m = specToWire(mirror, streamSourceFields);
    wire.mirror = { ...m, name: withPrefix(String(m.name)) };
    wire.mirror_direct = true;
  } else {
    wire.subjects = [kvSubject(bucket)];
    if (sources) {
      wire.sources = sources.map((s) => {
        const w = specToWire(s, streamSourceFields);
        const from = withoutPrefix(String(w.name));
        const transformed = !w.external && from !== bucket && w.subject_transforms === undefined;
        return {
          ...w,
          name: withPrefix(from),
          ...(transformed ? { subject_transforms: [{ src: kvSubject(from), dest: kvSubject(bucket) }] } : {}),
        };
      });
    }
  }
  return wire;
}

/** The key-value spec a bucket's stream config amounts to (for adoption). */
export function keyValueSpec(bucket: string, wire: Wire): Spec {
  const spec = wireToSpec(wire, keyValueFields);
  const mirror = wire.mirror as Wire | undefined;
  if (mirror) {
    const m = wireToSpec(mirror, streamSourceFields);
    spec.mirror = { ...m, name: withoutPrefix(String(m.name)) };
  }
  const sources = wire.sources as Wire[] | undefined;
  if (sources && sources.length > 0) {
    spec.sources = sources.map((s) => {
      const from = withoutPrefix(String(s.name));
      const transforms = s.subject_transforms as Wire[] | undefined;
      const onlyTheClientsTransform =
        transforms?.length === 1 && transforms[0]?.src === kvSubject(from) && transforms[0]?.dest === kvSubject(bucket);
      const source = wireToSpec(
        onlyTheClientsTransform ? { ...s, subject_transforms: undefined } : s,
        streamSourceFields,
      );
      return { ...source, name: from };
    });
  }
  return spec;
}

/** Why a stream named like a key-value bucket is not one, if it is not. */
export function keyValueShapeProblem(streamName: string, wire: Wire): string | undefined {
  const history = wire.max_msgs_per_subject;
  if (typeof history !== "number" || history < 1) {
    return `stream ${streamName} exists but is not a key-value bucket (max_msgs_per_subject is ${String(history ?? "unset")})`;
  }
  return undefined;
}

/** The stream config an object-store spec asks for. */
export function objectStoreWire(bucket: string, spec: Spec): Wire {
  return {
    ...specToWire(spec, objectStoreFields),
    subjects: objectSubjects(bucket),
    discard: "new",
    allow_rollup_hdrs: true,
    allow_direct: true,
  };
}

export function objectStoreSpec(wire: Wire): Spec {
  return wireToSpec(wire, objectStoreFields);
}

export function objectStoreShapeProblem(streamName: string, bucket: string, wire: Wire): string | undefined {
  const subjects = Array.isArray(wire.subjects) ? (wire.subjects as string[]) : [];
  const missing = objectSubjects(bucket).filter((s) => !subjects.includes(s));
  if (missing.length > 0)
    return `stream ${streamName} exists but is not an object store (no subjects ${missing.join(", ")})`;
  if (wire.allow_rollup_hdrs !== true)
    return `stream ${streamName} exists but is not an object store (rollups not allowed)`;
  return undefined;
}

/** Why a bucket spec cannot be applied at all, before asking the server. */
export function bucketSpecProblem(bucket: string, spec: Spec): string | undefined {
  if (!bucketNamePattern.test(bucket))
    return `invalid bucket name "${bucket}": only letters, digits, - and _ are allowed`;
  const placement = spec.placement as Spec | undefined;
  if (placement && !isZero(placement.preferred)) return "placement.preferred is not supported for buckets";
  const history = spec.history;
  if (typeof history === "number" && history > 64) return `history ${history} is too large: at most 64`;
  return undefined;
}
