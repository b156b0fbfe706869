// The wire of a leader move. For another account's group the system user asks through the system
// account's import of that account's jetstream-stepdown export, `acc.<key>.$JS.API.…`; a group of
// the connection's own account is asked directly.
import type { NatsConnection } from "@nats-io/transport-node";
import { systemRequest } from "../../../shared/nats/index.ts";

export interface StepdownTarget {
  account: string;
  stream: string;
  consumer?: string;
}

/** The subject a stepdown of `target` is requested on, from a connection in `ownAccount`. */
export function stepdownSubject(target: StepdownTarget, ownAccount: string | undefined): string {
  const api =
    target.consumer === undefined
      ? `$JS.API.STREAM.LEADER.STEPDOWN.${target.stream}`
      : `$JS.API.CONSUMER.LEADER.STEPDOWN.${target.stream}.${target.consumer}`;
  return target.account === ownAccount ? api : `acc.${target.account}.${api}`;
}

/** JetStream API requests wait this long. */
const stepdownTimeoutMs = 5_000;
/** The reach probe waits this long. */
export const probeTimeoutMs = 2_000;

/** Asks the group's leader to hand leadership to `to`; throws NatsApiError or NatsRequestError. */
export async function requestStepdown(
  nc: NatsConnection,
  target: StepdownTarget,
  to: string,
  ownAccount: string | undefined,
): Promise<void> {
  await systemRequest(nc, stepdownSubject(target, ownAccount), { placement: { preferred: to } }, stepdownTimeoutMs);
}
