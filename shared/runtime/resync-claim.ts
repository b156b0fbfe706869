// The resync cap's reads and writes (the decision is resync-cap.ts): one read of the PingSource a
// tick names, and for a firing not yet swept one merge patch of its annotation guarded by the
// resourceVersion read. An idle installation pays one read and one write per function and firing.
import type { Kube } from "../kube/client.ts";
import { guarded } from "../kube/guarded.ts";
import type { KubeObject } from "../kube/object.ts";
import { decideResyncCap, LAST_RESYNC_ANNOTATION, type ResyncCap, type ResyncClaim } from "./resync-cap.ts";
import { pingSourceType, type PingSourceSpec } from "./schedule-source.ts";

/** What came of a tick's claim: sweep (`claim` to release if the sweep fails), or skip and why. */
export type Claimed = { kind: "sweep"; release?: () => Promise<void> } | { kind: "skip"; reason: string };

/**
 * Reads the PingSource `pingSource` names (when it names one), decides, and writes the claim. A
 * claim someone else wrote first (409) is theirs: this tick skips.
 */
export async function claimResync(
  kube: Kube,
  fn: string,
  pingSource: string | undefined,
  home: string | undefined,
  now: Date,
): Promise<Claimed> {
  const found = pingSource === undefined ? undefined : await readSource(kube, pingSource);
  const cap: ResyncCap = decideResyncCap({ fn, pingSource, found, home, now });
  if (cap.kind === "skip" || cap.claim === undefined) return cap;
  const claim = cap.claim;
  const written = await guarded(() => annotate(kube, claim, claim.resourceVersion, claim.firing));
  if (written.kind === "conflict")
    return { kind: "skip", reason: `the firing at ${claim.firing} is claimed by another delivery` };
  const resourceVersion = written.value.metadata.resourceVersion ?? "";
  // Put back what was there, unless someone wrote since: their claim stands.
  const release = async () => void (await guarded(() => annotate(kube, claim, resourceVersion, claim.previous)));
  return { kind: "sweep", release };
}

async function readSource(kube: Kube, pingSource: string) {
  const [namespace = "", name = ""] = pingSource.split("/");
  const found = await kube.get<KubeObject & { spec?: PingSourceSpec }>({ ...pingSourceType, namespace, name });
  if (found === undefined) return undefined;
  return {
    namespace,
    name,
    ...(found.metadata.resourceVersion !== undefined ? { resourceVersion: found.metadata.resourceVersion } : {}),
    ...(found.metadata.annotations !== undefined ? { annotations: found.metadata.annotations } : {}),
    ...(found.spec?.schedule !== undefined ? { schedule: found.spec.schedule } : {}),
    ...(found.spec?.timezone !== undefined ? { timezone: found.spec.timezone } : {}),
  };
}

/** A merge patch of the annotation alone, with the resourceVersion as its precondition. */
function annotate(kube: Kube, claim: ResyncClaim, resourceVersion: string, value: string | undefined) {
  return kube.patch<KubeObject>(
    { ...pingSourceType, namespace: claim.namespace, name: claim.name },
    { metadata: { resourceVersion, annotations: { [LAST_RESYNC_ANNOTATION]: value ?? null } } },
    "merge",
  );
}
