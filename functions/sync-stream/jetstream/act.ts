// Writes to JetStream: create, update, delete.
import type { NatsConnection } from "@nats-io/transport-node";
import { ErrCodes, isNotFound, isPlacementError, jsRequest, NatsApiError } from "../../../shared/nats/index.ts";
import type { Wire } from "../config/fields.ts";
import type { Target } from "../targets/kinds.ts";
import type { ServerObject } from "../types.ts";

async function write(
  nc: NatsConnection,
  target: Target,
  config: Wire,
  action: "create" | "update",
): Promise<ServerObject> {
  const info =
    target.consumer === undefined
      ? await jsRequest(nc, `STREAM.${action === "create" ? "CREATE" : "UPDATE"}.${target.stream}`, config)
      : await jsRequest(nc, `CONSUMER.CREATE.${target.stream}.${target.consumer}`, {
          stream_name: target.stream,
          config,
          action,
        });
  return { config: (info.config ?? {}) as Wire, info };
}

export const createObject = (nc: NatsConnection, target: Target, config: Wire) => write(nc, target, config, "create");
export const updateObject = (nc: NatsConnection, target: Target, config: Wire) => write(nc, target, config, "update");

/** Deletes the server object; false when it was already gone. */
export async function deleteObject(nc: NatsConnection, target: Target): Promise<boolean> {
  const subject =
    target.consumer === undefined
      ? `STREAM.DELETE.${target.stream}`
      : `CONSUMER.DELETE.${target.stream}.${target.consumer}`;
  try {
    await jsRequest(nc, subject);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/**
 * Refusals that no retry will change: the server judged the config invalid
 * (code 400, or 10052 which it reports as 500). Placement failures also come
 * as 400 but pass once peers or room return, so they are retried.
 */
export function isRefusal(error: unknown): error is NatsApiError {
  if (!(error instanceof NatsApiError) || isPlacementError(error)) return false;
  return error.code === 400 || error.errCode === ErrCodes.streamInvalidConfig;
}
