// Read access to ConfigMaps, Secrets and claims for volumes and env, with "optional"
// handled by returning undefined for a missing object.
import type { CoreV1Api, V1ConfigMap, V1PersistentVolumeClaim, V1Secret } from "@kubernetes/client-node";

export interface ObjectSource {
  configMap(namespace: string, name: string): Promise<V1ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<V1Secret | undefined>;
  claim(namespace: string, name: string): Promise<V1PersistentVolumeClaim | undefined>;
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: number; statusCode?: number; body?: unknown };
  return e.code === 404 || e.statusCode === 404;
}

export function apiObjectSource(core: CoreV1Api): ObjectSource {
  return {
    async configMap(namespace, name) {
      try {
        return await core.readNamespacedConfigMap({ namespace, name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async secret(namespace, name) {
      try {
        return await core.readNamespacedSecret({ namespace, name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async claim(namespace, name) {
      try {
        return await core.readNamespacedPersistentVolumeClaim({ namespace, name });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
  };
}
