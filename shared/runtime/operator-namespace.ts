// The namespace the operator runs in: the NetworkPolicy admits it to the monitoring port, and
// balancers keep their move leases there.
import { readFileSync } from "node:fs";

const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** POD_NAMESPACE, else the pod's ServiceAccount namespace file; undefined outside a pod. */
export function operatorNamespace(): string | undefined {
  const fromEnv = process.env["POD_NAMESPACE"];
  if (fromEnv) return fromEnv;
  try {
    return readFileSync(serviceAccountNamespace, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
