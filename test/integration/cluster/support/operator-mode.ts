// What an operator-mode NatsCluster needs in its namespace: a literal NatsOperatorTrust `acme`
// and the system user's creds in the Secret `cluster-controller-creds`.
import type { Kube } from "../../../../shared/kube/client.ts";
import type { KubeObject } from "../../../../shared/kube/object.ts";
import type { TestOperator } from "../../../support/nats-auth.ts";

export const TRUST = "acme";
export const SYSTEM_CREDENTIALS = "cluster-controller-creds";

/** `spec.auth` naming both. */
export const operatorModeAuth = () => ({
  trustRef: { name: TRUST },
  systemCredentials: { secretKeyRef: { name: SYSTEM_CREDENTIALS } },
});

export async function installOperatorTrust(kube: Kube, namespace: string, nats: TestOperator): Promise<void> {
  await kube.create({
    apiVersion: "nats-operator.io/v1beta1",
    kind: "NatsOperatorTrust",
    metadata: { name: TRUST, namespace },
    spec: { operatorJWT: nats.operatorJWT, systemAccountJWT: nats.systemAccount.jwt },
  } as KubeObject);
  await kube.create({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: SYSTEM_CREDENTIALS, namespace },
    stringData: { "user.creds": nats.systemUserCreds },
  } as KubeObject);
}
