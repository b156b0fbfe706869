// JetStream store limits and GOMEMLIMIT derived from the memory limit and the volume size.
import type { Cluster as NatsCluster } from "../cluster.ts";
import { formatBytes, parseBytes } from "../../../shared/units/index.ts";

export interface DerivedLimits {
  /** Bytes for GOMEMLIMIT: 90% of the memory limit, when one is set. */
  goMemLimit?: bigint;
  /** Bytes for `jetstream.max_memory_store`: the override, else 75% of the memory limit. */
  maxMemoryStore?: bigint;
  /** Bytes for `jetstream.max_file_store`: the override, else 95% of the volume size. */
  maxFileStore?: bigint;
}

export function deriveLimits(spec: NatsCluster["spec"]): DerivedLimits {
  const memory = parseBytes(spec.resources?.limits?.["memory"]);
  const storage = parseBytes(spec.jetstream?.volumeClaimTemplate?.spec.resources?.requests?.["storage"]);
  const limits: DerivedLimits = {};
  if (memory !== undefined && memory > 0n) limits.goMemLimit = (memory * 9n) / 10n;
  if (spec.jetstream) {
    const memoryOverride = parseBytes(spec.jetstream.limits?.maxMemoryStore);
    const fileOverride = parseBytes(spec.jetstream.limits?.maxFileStore);
    const maxMemoryStore = memoryOverride ?? (memory !== undefined ? (memory * 3n) / 4n : undefined);
    const maxFileStore = fileOverride ?? (storage !== undefined ? (storage * 19n) / 20n : undefined);
    if (maxMemoryStore !== undefined && maxMemoryStore > 0n) limits.maxMemoryStore = maxMemoryStore;
    if (maxFileStore !== undefined && maxFileStore > 0n) limits.maxFileStore = maxFileStore;
  }
  return limits;
}

/** `status.jetstream.limits`: the effective limits as quantities (`3Gi`, `19Gi`). */
export function limitsStatus(limits: DerivedLimits): { maxMemoryStore?: string; maxFileStore?: string } {
  return {
    ...(limits.maxMemoryStore !== undefined ? { maxMemoryStore: formatBytes(limits.maxMemoryStore) } : {}),
    ...(limits.maxFileStore !== undefined ? { maxFileStore: formatBytes(limits.maxFileStore) } : {}),
  };
}
