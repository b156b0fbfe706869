// Reads the server object a resource stands for.
import type { NatsConnection } from "@nats-io/transport-node";
import { ErrCodes, jsRequest, NatsApiError } from "../../../shared/nats/index.ts";
import type { Wire } from "../config/fields.ts";
import type { Target } from "../targets/kinds.ts";
import type { Observation } from "../types.ts";

export function infoSubject(target: Target): string {
  return target.consumer === undefined
    ? `STREAM.INFO.${target.stream}`
    : `CONSUMER.INFO.${target.stream}.${target.consumer}`;
}

export async function observe(nc: NatsConnection, target: Target): Promise<Observation> {
  try {
    const info = await jsRequest(nc, infoSubject(target));
    return { found: true, observed: { config: (info.config ?? {}) as Wire, info } };
  } catch (error) {
    if (error instanceof NatsApiError && error.errCode === ErrCodes.streamNotFound)
      return { found: false, streamMissing: true };
    if (error instanceof NatsApiError && error.errCode === ErrCodes.consumerNotFound)
      return { found: false, streamMissing: false };
    throw error;
  }
}
