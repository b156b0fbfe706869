// Why a server's pod does not come up, when the cluster says why: the API server refused to let
// the StatefulSet controller create it (its FailedCreate Event), or a container of the pod
// cannot get its image, was OOM-killed or is crash-looping (the pod's container statuses). Pure:
// observe.ts reads the pod and the Event, and the Ready condition tells what this finds
// (conditions.ts). What is taken from the cluster's own text is cut to MAX_DETAIL characters.
import type { Reason } from "../../../shared/api/index.ts";
import type { ContainerStatus, FailedCreate, Pod } from "../nats-cluster/types.ts";

export type PodFailureReason = Extract<Reason, "PodRefused" | "ImageUnavailable" | "OOMKilled" | "CrashLooping">;

/** What keeps a server's pod from coming up: a reason, and the cause in words (no server name). */
export interface PodFailure {
  reason: PodFailureReason;
  cause: string;
}

export const POD_FAILURE_REASONS: ReadonlySet<string> = new Set<PodFailureReason>([
  "PodRefused",
  "ImageUnavailable",
  "OOMKilled",
  "CrashLooping",
]);

/** The most of one cause's text taken from an Event or a container status. */
export const MAX_DETAIL = 300;

export const clip = (text: string, max = MAX_DETAIL): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

// The StatefulSet controller's message: "create Pod demo-0-0 in StatefulSet demo-0 failed error:
// <the API server's answer>", or "create Claim data-demo-0-0 for Pod … failed error: …".
const CREATE_POD = /^create Pod \S+ in StatefulSet \S+ failed error: ([\s\S]*)$/;
const CREATE_CLAIM = /^create Claim (\S+) for Pod \S+ in StatefulSet \S+ failed error: ([\s\S]*)$/;
// Pod Security admission: `pods "demo-0-0" is forbidden: violates PodSecurity "restricted:latest": <what>`.
const POD_SECURITY = /violates PodSecurity "([^"]+)": ([\s\S]*)$/;
// A refusal for good (403 Forbidden, 422 Invalid, an admission webhook's denial); anything else
// (a claim still being deleted, a timeout) passes, and the server reads as waiting.
const REFUSED = /\bis forbidden\b|\bis invalid\b|denied the request/;

/** What a current FailedCreate Event says, when it is a refusal. */
export function refusalOf(failedCreate: FailedCreate): PodFailure | undefined {
  const claim = CREATE_CLAIM.exec(failedCreate.message);
  const answer = claim?.[2] ?? CREATE_POD.exec(failedCreate.message)?.[1] ?? failedCreate.message;
  if (!REFUSED.test(answer)) return undefined;
  const podSecurity = POD_SECURITY.exec(answer);
  if (podSecurity)
    return {
      reason: "PodRefused",
      cause: `pod refused by the namespace's Pod Security level "${podSecurity[1] ?? ""}": ${clip(podSecurity[2] ?? "")}`,
    };
  return { reason: "PodRefused", cause: `${claim ? `claim ${claim[1] ?? ""}` : "pod"} refused: ${clip(answer)}` };
}

// The kubelet's waiting reasons for an image it cannot get (k8s.io/kubernetes pkg/kubelet/images).
const IMAGE_REASONS: ReadonlySet<string> = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "ErrImageNeverPull",
  "InvalidImageName",
  "ImageInspectError",
  "RegistryUnavailable",
  "SignatureValidationFailed",
]);

/**
 * The pull error without the back-off's wrapping: `Back-off pulling image "x": ErrImagePull: <error>`
 * and the `<error>` of ErrImagePull read the same, so the message does not change with each back-off.
 */
function pullError(message: string): string {
  return message
    .replace(/^Back-off pulling image "[^"]*"(: )?/, "")
    .replace(/^(ErrImagePull|RegistryUnavailable|SignatureValidationFailed): /, "");
}

type Container = NonNullable<NonNullable<Pod["spec"]>["containers"]>[number];

function imageFailure(status: ContainerStatus, spec: Container | undefined): PodFailure | undefined {
  const waiting = status.state?.waiting;
  if (!waiting?.reason || !IMAGE_REASONS.has(waiting.reason)) return undefined;
  const image = spec?.image ?? status.image ?? "";
  const detail = clip(pullError(waiting.message ?? ""));
  return {
    reason: "ImageUnavailable",
    cause: `container "${status.name}" cannot get image "${image}"${detail ? `: ${detail}` : ` (${waiting.reason})`}`,
  };
}

function oomFailure(status: ContainerStatus, spec: Container | undefined): PodFailure | undefined {
  const killed =
    status.state?.terminated?.reason === "OOMKilled" ||
    (status.lastState?.terminated?.reason === "OOMKilled" && (status.restartCount ?? 0) > 0);
  if (!killed || status.ready === true) return undefined;
  const limit = spec?.resources?.limits?.["memory"];
  return {
    reason: "OOMKilled",
    cause: `container "${status.name}" OOM-killed${limit ? ` (memory limit ${limit})` : ""}`,
  };
}

function crashFailure(status: ContainerStatus): PodFailure | undefined {
  if (status.state?.waiting?.reason !== "CrashLoopBackOff") return undefined;
  const last = status.lastState?.terminated;
  const exit =
    last?.exitCode !== undefined ? ` (last exit code ${last.exitCode}${last.reason ? `, ${last.reason}` : ""})` : "";
  // The termination message is the container's own output: not repeated here.
  return { reason: "CrashLooping", cause: `container "${status.name}" crash-looping${exit}` };
}

/**
 * Why the server's pod does not come up: refused (no pod, a current FailedCreate that is a
 * refusal), else the first container that cannot get its image, else the first OOM-killed one
 * (in a crash loop or not), else the first crash-looping one, init containers first and then in
 * the pod spec's order; undefined when nothing says (it is on its way, or waits for something else).
 */
export function podFailure(pod: Pod | undefined, failedCreate: FailedCreate | undefined): PodFailure | undefined {
  if (!pod) return failedCreate ? refusalOf(failedCreate) : undefined;
  const specs = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  // In the pod spec's order (nats before its exporter), not the kubelet's (by name).
  const order = (status: ContainerStatus) => {
    const at = specs.findIndex((c) => c.name === status.name);
    return at < 0 ? specs.length : at;
  };
  const withSpec = [...statuses]
    .sort((a, b) => order(a) - order(b))
    .map((status) => [status, specs.find((c) => c.name === status.name)] as const);
  const judges: ((status: ContainerStatus, spec: Container | undefined) => PodFailure | undefined)[] = [
    imageFailure,
    oomFailure,
    crashFailure,
  ];
  for (const judge of judges) {
    for (const [status, spec] of withSpec) {
      const failure = judge(status, spec);
      if (failure) return failure;
    }
  }
  return undefined;
}
