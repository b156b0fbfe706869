// A pod's API credentials: a kubeconfig holding a bound token of the pod's
// ServiceAccount, made through the TokenRequest API. The harness runs no
// ServiceAccount admission and programs here have no container filesystem for
// /var/run/secrets, so KUBECONFIG points at this file instead (client-go,
// Knative's sharedmain and our own code all read it). The same token, the CA
// and the namespace are also written as the files of a service-account volume,
// for a program that reads them from /var/run/secrets (see netns.ts).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import type { CoreV1Api, V1Pod } from "@kubernetes/client-node";

const TOKEN_SECONDS = 24 * 3600;

export interface KubeconfigTarget {
  dir: string;
  server: string;
  caData: string;
  tlsServerName?: string;
}

export interface PodCredentials {
  /** A kubeconfig file. */
  kubeconfig: string;
  /** A directory with `token`, `ca.crt` and `namespace`, as a service-account volume holds them. */
  serviceAccountDir: string;
}

export async function writePodKubeconfig(
  core: CoreV1Api,
  pod: V1Pod,
  target: KubeconfigTarget,
): Promise<PodCredentials> {
  const namespace = pod.metadata?.namespace ?? "default";
  // Without ServiceAccount admission an unnamed account stays unset on the pod, and a token bound to
  // the pod would be refused; such a pod gets an unbound token of "default", as admission would give it.
  const named = pod.spec?.serviceAccountName;
  const serviceAccount = named ?? "default";
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name: serviceAccount,
    body: {
      spec: {
        audiences: [],
        expirationSeconds: TOKEN_SECONDS,
        ...(named === undefined
          ? {}
          : {
              boundObjectRef: {
                apiVersion: "v1",
                kind: "Pod",
                name: pod.metadata?.name ?? "",
                uid: pod.metadata?.uid ?? "",
              },
            }),
      },
    },
  });
  const token = request.status?.token;
  if (token === undefined) throw new Error(`no token for ServiceAccount ${namespace}/${serviceAccount}`);
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "in-cluster",
        cluster: {
          server: target.server,
          "certificate-authority-data": target.caData,
          ...(target.tlsServerName !== undefined ? { "tls-server-name": target.tlsServerName } : {}),
        },
      },
    ],
    users: [{ name: serviceAccount, user: { token } }],
    contexts: [{ name: "in-cluster", context: { cluster: "in-cluster", user: serviceAccount, namespace } }],
    "current-context": "in-cluster",
  };
  const base = join(target.dir, `${namespace}.${pod.metadata?.name ?? ""}.${(pod.metadata?.uid ?? "").slice(0, 8)}`);
  const kubeconfig = `${base}.yaml`;
  await writeFile(kubeconfig, stringify(config), { mode: 0o600 });
  const serviceAccountDir = `${base}.serviceaccount`;
  await mkdir(serviceAccountDir, { recursive: true, mode: 0o700 });
  await writeFile(join(serviceAccountDir, "token"), token, { mode: 0o600 });
  await writeFile(join(serviceAccountDir, "ca.crt"), Buffer.from(target.caData, "base64"));
  await writeFile(join(serviceAccountDir, "namespace"), namespace);
  return { kubeconfig, serviceAccountDir };
}
