import { describe, expect, it } from "@jest/globals";
import {
  CLAIM_TERMINATING,
  CONTAINER_CREATING,
  CRASH_LOOPING,
  ERR_IMAGE_PULL,
  EXPORTER_RUNNING,
  IMAGE_PULL_BACK_OFF,
  OOM_KILLED,
  POD_SECURITY_REFUSAL,
  QUOTA_REFUSAL,
  podOf,
} from "../../../test/fixtures/cluster/pod-failures.ts";
import { clip, MAX_DETAIL, podFailure } from "./pod-failure.ts";

const AT = "2026-12-03T09:59:00Z";
const failed = (message: string) => ({ message, at: AT });

describe("why a server's pod does not come up", () => {
  it("names the refused field when the namespace's Pod Security level refuses the pod", () => {
    expect(podFailure(undefined, failed(POD_SECURITY_REFUSAL))).toEqual({
      reason: "PodRefused",
      cause:
        'pod refused by the namespace\'s Pod Security level "restricted:latest": privileged (container "nats" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "nats" must set securityContext.allowPrivilegeEscalation=false)',
    });
  });

  it("tells any other refusal of the pod with the API server's answer", () => {
    expect(podFailure(undefined, failed(QUOTA_REFUSAL))).toEqual({
      reason: "PodRefused",
      cause:
        'pod refused: pods "demo-0-0" is forbidden: exceeded quota: compute, requested: limits.memory=4Gi, used: limits.memory=8Gi, limited: limits.memory=10Gi',
    });
  });

  it("tells a refused claim by the claim's name", () => {
    const message =
      "create Claim data-demo-0-0 for Pod demo-0-0 in StatefulSet demo-0 failed error: " +
      'persistentvolumeclaims "data-demo-0-0" is forbidden: exceeded quota: storage';
    expect(podFailure(undefined, failed(message))).toMatchObject({
      reason: "PodRefused",
      cause:
        'claim data-demo-0-0 refused: persistentvolumeclaims "data-demo-0-0" is forbidden: exceeded quota: storage',
    });
  });

  it("finds nothing in a failed create that is no refusal (a claim still being deleted): the server waits", () => {
    expect(podFailure(undefined, failed(CLAIM_TERMINATING))).toBeUndefined();
  });

  it("finds nothing for a missing pod without a current FailedCreate: the server waits", () => {
    expect(podFailure(undefined, undefined)).toBeUndefined();
  });

  it("names the container, the image and the pull error when the image cannot be pulled", () => {
    expect(podFailure(podOf("demo-0", [ERR_IMAGE_PULL, EXPORTER_RUNNING], "nats:9.9.9"), undefined)).toEqual({
      reason: "ImageUnavailable",
      cause:
        'container "nats" cannot get image "nats:9.9.9": rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nats:9.9.9": failed to resolve reference "docker.io/library/nats:9.9.9": docker.io/library/nats:9.9.9: not found',
    });
  });

  it("says the same during the pull back-off as on the failed pull, so the message holds still", () => {
    const pulling = podFailure(podOf("demo-0", [ERR_IMAGE_PULL], "nats:9.9.9"), undefined);
    const backingOff = podFailure(podOf("demo-0", [IMAGE_PULL_BACK_OFF], "nats:9.9.9"), undefined);
    expect(backingOff).toEqual(pulling);
  });

  it("names the kubelet's reason when an image failure comes without a message", () => {
    const never = { ...ERR_IMAGE_PULL, state: { waiting: { reason: "ErrImageNeverPull" } } };
    expect(podFailure(podOf("demo-0", [never], "nats:9.9.9"), undefined)).toEqual({
      reason: "ImageUnavailable",
      cause: 'container "nats" cannot get image "nats:9.9.9" (ErrImageNeverPull)',
    });
  });

  it("tells an OOM-killed container with its memory limit, rather than the crash loop it is in", () => {
    expect(podFailure(podOf("demo-0", [OOM_KILLED, EXPORTER_RUNNING]), undefined)).toEqual({
      reason: "OOMKilled",
      cause: 'container "nats" OOM-killed (memory limit 4Gi)',
    });
  });

  it("tells a container killed for its memory right now, before any restart", () => {
    const killed = { ...OOM_KILLED, restartCount: 0, state: { terminated: { reason: "OOMKilled", exitCode: 137 } } };
    expect(podFailure(podOf("demo-0", [killed]), undefined)?.reason).toBe("OOMKilled");
  });

  it("does not hold an old OOM kill against a container that is ready again", () => {
    const recovered = { ...OOM_KILLED, ready: true, state: { running: { startedAt: AT } } };
    expect(podFailure(podOf("demo-0", [recovered]), undefined)).toBeUndefined();
  });

  it("tells a crash-looping container with its last exit, never its output", () => {
    const failure = podFailure(podOf("demo-0", [CRASH_LOOPING, EXPORTER_RUNNING]), undefined);
    expect(failure).toEqual({
      reason: "CrashLooping",
      cause: 'container "nats" crash-looping (last exit code 1, Error)',
    });
    expect(failure?.cause).not.toContain("unknown flag");
  });

  it("finds nothing while the pod's containers are still being created: the server waits", () => {
    expect(podFailure(podOf("demo-0", [CONTAINER_CREATING, EXPORTER_RUNNING]), undefined)).toBeUndefined();
  });

  it("tells the containers in the pod spec's order, nats before its exporter, whatever the kubelet's order", () => {
    const exporterCrashing = { ...CRASH_LOOPING, name: "exporter", lastState: { terminated: { exitCode: 2 } } };
    expect(podFailure(podOf("demo-0", [exporterCrashing, CRASH_LOOPING]), undefined)?.cause).toBe(
      'container "nats" crash-looping (last exit code 1, Error)',
    );
  });

  it("tells the image before a crash loop of another container of the same pod", () => {
    const exporterCrashing = { ...CRASH_LOOPING, name: "exporter" };
    expect(podFailure(podOf("demo-0", [exporterCrashing, ERR_IMAGE_PULL]), undefined)?.reason).toBe("ImageUnavailable");
  });

  it("cuts what it takes from the cluster to a bounded length", () => {
    const long = `${POD_SECURITY_REFUSAL}, ${"x".repeat(1000)}`;
    const cause = podFailure(undefined, failed(long))?.cause ?? "";
    expect(cause.length).toBeLessThan(MAX_DETAIL + 80);
    expect(cause.endsWith("…")).toBe(true);
    expect(clip("a\n  b")).toBe("a b");
  });
});
