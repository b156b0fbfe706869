// Losing an ApiServerSource's events on real Knative, and seeing that they were lost: its receive
// adapter's Deployment scaled to zero (Knative's ApiServerSource reconciler compares only the
// adapter's pod template, pkg/reconciler/apiserversource/apiserversource.go, so the scale holds
// until we undo it; the test checks it held), and what each function was delivered, read from its
// pods' own log lines ("event handled" per delivery, "resync tick handled" per sweep).
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "../../../harness/wait.ts";
import type { KnativeCluster } from "./knative-cluster.ts";

const OPERATOR_NAMESPACE = "nats-operator";

/** The label Knative gives the receive adapter of the ApiServerSource `source`. */
const adapterSelector = (source: string) => `eventing.knative.dev/sourceName=${source}`;

/** How many replicas the adapter's Deployment asks for, and how many of its pods exist. */
export async function adapterScale(k: KnativeCluster, source: string): Promise<{ wanted: number; pods: number }> {
  const wanted = await k.kubectl(
    "get",
    "deployments",
    "-n",
    OPERATOR_NAMESPACE,
    "-l",
    adapterSelector(source),
    "-o",
    "jsonpath={.items[*].spec.replicas}",
  );
  const pods = await k.kubectl("get", "pods", "-n", OPERATOR_NAMESPACE, "-l", adapterSelector(source), "-o", "name");
  return { wanted: Number(wanted.trim()), pods: pods.split("\n").filter((l) => l !== "").length };
}

/**
 * Scales the adapter of the ApiServerSource `source` to `replicas` and waits until that many of
 * its pods run (ready, when one is asked for): at zero, no adapter watches the API server.
 */
export async function scaleAdapter(k: KnativeCluster, source: string, replicas: 0 | 1): Promise<void> {
  await k.kubectl(
    "scale",
    "deployment",
    "-n",
    OPERATOR_NAMESPACE,
    "-l",
    adapterSelector(source),
    `--replicas=${replicas}`,
  );
  if (replicas === 0)
    await waitFor(
      `${source}'s adapter gone`,
      async () => ((await adapterScale(k, source)).pods === 0 ? true : undefined),
      { timeoutMs: 60_000, intervalMs: 1_000 },
    );
  else
    await k.kubectl(
      "wait",
      "pods",
      "-n",
      OPERATOR_NAMESPACE,
      "-l",
      adapterSelector(source),
      "--for=condition=Ready",
      "--timeout=120s",
    );
}

/** Every PingSource of the operator (its resync ticks) on `schedule` (Knative takes seconds too). */
export async function setResyncSchedule(k: KnativeCluster, schedule: string): Promise<void> {
  const names = await k.kubectl("get", "pingsources", "-n", OPERATOR_NAMESPACE, "-o", "name");
  for (const name of names.split("\n").filter((l) => l !== ""))
    await k.kubectl(
      "patch",
      name,
      "-n",
      OPERATOR_NAMESPACE,
      "--type=merge",
      "-p",
      JSON.stringify({ spec: { schedule } }),
    );
}

/** One log line of a function: what it was delivered and how it answered. */
export interface FunctionLogLine {
  at: number;
  msg: string;
  kind?: string;
  namespace?: string;
  name?: string;
  outcome?: string;
  detail?: string;
}

/**
 * The log lines of every pod the function's Deployment ran (the kubelet keeps each container's
 * output under the harness's work dir), oldest first.
 */
export async function functionLog(k: KnativeCluster, fn: string): Promise<FunctionLogLine[]> {
  const podsDir = join(k.harness.workDir, "pods", OPERATOR_NAMESPACE);
  const lines: FunctionLogLine[] = [];
  for (const pod of (await readdir(podsDir)).filter((d) => d.startsWith(`${fn}-`))) {
    const logs = join(podsDir, pod, "logs");
    for (const file of await readdir(logs).catch(() => [])) {
      for (const line of (await readFile(join(logs, file), "utf8")).split("\n")) {
        if (!line.startsWith("{")) continue;
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          if (entry["function"] !== fn || typeof entry["time"] !== "string") continue;
          const text = (key: string) => (typeof entry[key] === "string" ? { [key]: entry[key] } : {});
          lines.push({
            at: Date.parse(entry["time"]),
            msg: String(entry["msg"]),
            ...text("kind"),
            ...text("namespace"),
            ...text("name"),
            ...text("outcome"),
            ...text("detail"),
          });
        } catch {
          // A line cut short by a container being stopped mid-write.
        }
      }
    }
  }
  return lines.sort((a, b) => a.at - b.at);
}

/** The deliveries the function handled of the object `kind` `namespace/name` since `since`. */
export async function deliveriesOf(
  k: KnativeCluster,
  fn: string,
  object: { kind: string; namespace: string; name: string },
  since: number,
): Promise<FunctionLogLine[]> {
  return (await functionLog(k, fn)).filter(
    (l) =>
      l.at >= since &&
      l.msg === "event handled" &&
      l.kind === object.kind &&
      l.namespace === object.namespace &&
      l.name === object.name,
  );
}

/**
 * The summaries of the function's resync sweeps answered since `since`, oldest first; a tick the
 * resync cap skipped (its firing swept already: a redelivery) swept nothing and is left out.
 */
export async function sweepsSince(k: KnativeCluster, fn: string, since: number): Promise<string[]> {
  return (await functionLog(k, fn))
    .filter((l) => l.at >= since && l.msg === "resync tick handled" && l.outcome !== "skipped")
    .map((l) => l.detail ?? "");
}

/**
 * Waits for the first of the function's sweeps since `since` that delivered an object whose
 * inputs changed; answers its position among those sweeps (0: the first one answered after `since`).
 */
export async function sweepThatFoundIt(k: KnativeCluster, fn: string, since: number): Promise<number> {
  const found = async () =>
    (await sweepsSince(k, fn, since)).findIndex((s) => /, [1-9]\d* whose inputs changed delivered/.test(s));
  const check = async () => {
    const at = await found();
    return at >= 0 ? at : undefined;
  };
  return waitFor("the sweep that found it", check, {
    timeoutMs: 120_000,
    intervalMs: 2_000,
  }).catch(async (error: unknown) => {
    throw new Error(`${String(error)}; sweeps since: ${(await sweepsSince(k, fn, since)).join(" | ")}`);
  });
}

/** The deliveries the function did not finish since `since` (conflicts, retries), as `kind ns/name: outcome: detail`. */
export async function unfinishedSince(k: KnativeCluster, fn: string, since: number): Promise<string[]> {
  return (await functionLog(k, fn))
    .filter((l) => l.at >= since && l.msg === "event handled" && l.outcome !== "done" && l.outcome !== "skipped")
    .map((l) => `${l.kind ?? ""} ${l.namespace ?? ""}/${l.name ?? ""}: ${l.outcome ?? ""}: ${l.detail ?? ""}`);
}

/**
 * What a failed wait leaves to read: every condition of the objects of `kinds` in `namespaces`,
 * and each function's warnings, errors and unfinished deliveries of the last `lines`.
 */
export async function diagnose(
  k: KnativeCluster,
  namespaces: readonly string[],
  kinds: string,
  functions: readonly string[],
  lines = 15,
): Promise<string> {
  const out: string[] = [];
  for (const namespace of namespaces)
    out.push(
      await k
        .kubectl(
          "get",
          kinds,
          "-n",
          namespace,
          "-o",
          'jsonpath={range .items[*]}{.kind}/{.metadata.name}:{range .status.conditions[*]} {.type}={.status}/{.reason}{end}{"\\n"}{end}',
        )
        .catch((error: unknown) => String(error)),
    );
  for (const fn of functions) {
    const log = (await functionLog(k, fn).catch(() => [])).filter(
      (l) => (l.msg === "event handled" && l.outcome !== "done" && l.outcome !== "skipped") || l.outcome === undefined,
    );
    out.push(
      ...log
        .slice(-lines)
        .map(
          (l) =>
            `${fn} ${new Date(l.at).toISOString()} ${l.msg} ${l.kind ?? ""} ${l.namespace ?? ""}/${l.name ?? ""} ${l.outcome ?? ""} ${l.detail ?? ""}`,
        ),
    );
  }
  return out.join("\n");
}
