// The object reconcile's writes, in order: Adopt's claim on spec (guarded, before the server is
// touched), the JetStream write, the reads its result needs (the leader of a new group, a moving
// stream's consumers), the spec fill-in, then the one guarded status write, then the Events.
import { keyOf, type Kube, KubeRequestError, writeStatus } from "../../../shared/kube/index.ts";
import { NatsApiError, NatsRequestError } from "../../../shared/nats/index.ts";
import type { Acted } from "../../../shared/runtime/index.ts";
import type { Spec } from "../config/fields.ts";
import { fieldManager, note, type Notes } from "../context.ts";
import { isRefusal } from "../jetstream/act.ts";
import { withLeader } from "../jetstream/leader.ts";
import type { JetStreamServer } from "../jetstream/server.ts";
import { keepSettleCheck } from "../settle.ts";
import type { JetStreamObject, ServerObject } from "../types.ts";
import { afterWrite, fillPatch, movingTo, refused, writeFailed } from "./decide.ts";
import type { AfterWrite, Decision, Finish, SyncDecision } from "./types.ts";

export interface ActContext extends Notes {
  readonly kube: Kube;
}

export async function actOn(
  object: JetStreamObject,
  decision: Decision,
  context: ActContext,
  server: JetStreamServer | undefined,
): Promise<Acted> {
  if (decision.kind === "finish") return finishPass(object, decision.finish, context);
  if (!server) throw new Error("a JetStream write without a JetStream connection");
  return finishPass(object, await write(object, decision, context, server), context);
}

const isNatsFailure = (error: unknown): error is Error =>
  error instanceof NatsApiError || error instanceof NatsRequestError;

/** The JetStream write and what its result shows; NATS failures become the status they lead to. */
async function write(
  object: JetStreamObject,
  decision: SyncDecision,
  context: ActContext,
  server: JetStreamServer,
): Promise<Finish> {
  let written: ServerObject;
  try {
    if (decision.claim) await patchSpec(context.kube, object, decision.claim);
    written = await writeServer(server, decision);
  } catch (error) {
    if (isRefusal(error)) return refused(decision, error.message);
    if (isNatsFailure(error)) return writeFailed(decision, error.message);
    throw error;
  }
  try {
    // A new replicated group may not have elected its leader yet: re-read briefly so the status names it.
    const after = await withLeader(written, async () => {
      const again = await server.info(decision.target);
      return again.found ? again.observed : undefined;
    });
    const fill = fillPatch(decision, object.spec, after);
    if (fill) await patchSpec(context.kube, object, fill);
    return afterWrite(decision, { server: after, ...(await consumersOf(decision, after, server)) });
  } catch (error) {
    if (isNatsFailure(error)) return writeFailed(decision, error.message);
    throw error;
  }
}

async function writeServer(server: JetStreamServer, decision: SyncDecision): Promise<ServerObject> {
  const { target, plan } = decision;
  switch (plan.kind) {
    case "create":
      return server.create(target, plan.config);
    case "update":
      return server.update(target, plan.config);
    case "recreate":
      await server.remove(target);
      return server.create(target, plan.config);
    case "settled":
      if (!decision.server) throw new Error("no server object after acting");
      return decision.server;
  }
}

/** A moving stream's consumers, counted in the status; a failed listing is what the status says. */
async function consumersOf(
  decision: SyncDecision,
  after: ServerObject,
  server: JetStreamServer,
): Promise<Pick<AfterWrite, "consumers">> {
  const to = movingTo(decision, after);
  if (!to) return {};
  try {
    return { consumers: { ok: true, list: await server.consumers(decision.target.stream) } };
  } catch (error) {
    return { consumers: { ok: false, why: error instanceof Error ? error.message : String(error) } };
  }
}

/** A merge patch of spec, guarded by the resourceVersion read. */
async function patchSpec(kube: Kube, object: JetStreamObject, patch: Spec): Promise<void> {
  await kube.patch(
    keyOf(object),
    { metadata: { resourceVersion: object.metadata.resourceVersion }, spec: patch },
    "merge",
  );
}

/**
 * The one status write of the pass, guarded: a reconcile that waited on NATS must not overwrite
 * what a newer one wrote (that loss answers 409). Events after it: the status is what a user (and
 * kubectl wait) waits on.
 */
async function finishPass(object: JetStreamObject, finish: Finish, context: ActContext): Promise<Acted> {
  try {
    const written = await writeStatus(context.kube, object, finish.status, fieldManager, { whole: true });
    if (written.kind === "conflict") return { kind: "conflict", message: written.error.message };
  } catch (error) {
    if (!(error instanceof KubeRequestError && error.isNotFound)) throw error;
  }
  for (const [type, reason, message] of finish.notes) await note(context, object, type, reason, message);
  const { answer } = finish;
  if (answer.kind === "again") return { kind: "again", message: answer.message };
  const schedules = finish.unsettled ? [keepSettleCheck(object.metadata.namespace ?? "")] : [];
  return { kind: "done", summary: answer.summary, ...(schedules.length ? { schedules } : {}) };
}
