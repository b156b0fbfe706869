import { describe, expect, it } from "@jest/globals";
import type { ConditionUpdate } from "../../shared/kube/conditions.ts";
import { RENDER_FAILURE_ANNOTATION, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/constants/annotations.ts";
import { refineProgressing } from "./progressing-reason.ts";

const ready: ConditionUpdate = {
  type: "Ready",
  status: "False",
  reason: "QuorumUnavailable",
  message: "0 of 3 servers ready",
};
const progressing = (
  reason: string,
  message: string,
  status: ConditionUpdate["status"] = "False",
): ConditionUpdate => ({ type: "Progressing", status, reason, message });

describe("Progressing, refined", () => {
  it("reads a refused trust as False with its reason, whatever the planner said", () => {
    const hold = { reason: "TrustNotFound", message: "NatsOperatorTrust a/t does not exist" };
    expect(refineProgressing([ready, progressing("TrustNotFound", hold.message, "True")], hold, undefined)).toEqual([
      ready,
      progressing("TrustNotFound", hold.message),
    ]);
    expect(
      refineProgressing([progressing("ReconcileFailed", "older failure")], hold, {
        [RENDER_FAILURE_ANNOTATION]: "older failure",
      }),
    ).toEqual([progressing("TrustNotFound", hold.message)]);
  });

  it("names a recorded render failure with the reason recorded beside it", () => {
    const annotations = { [RENDER_FAILURE_ANNOTATION]: "no grant", [RENDER_FAILURE_REASON_ANNOTATION]: "NoGrant" };
    expect(refineProgressing([progressing("ReconcileFailed", "no grant")], undefined, annotations)).toEqual([
      progressing("NoGrant", "no grant"),
    ]);
  });

  it("leaves a generic render failure, and every other reason, alone", () => {
    expect(
      refineProgressing([progressing("ReconcileFailed", "boom")], undefined, { [RENDER_FAILURE_ANNOTATION]: "boom" }),
    ).toEqual([progressing("ReconcileFailed", "boom")]);
    const annotations = { [RENDER_FAILURE_ANNOTATION]: "x", [RENDER_FAILURE_REASON_ANNOTATION]: "NoGrant" };
    expect(
      refineProgressing([progressing("UpToDate", "every server runs the target revision")], undefined, annotations),
    ).toEqual([progressing("UpToDate", "every server runs the target revision")]);
  });
});
