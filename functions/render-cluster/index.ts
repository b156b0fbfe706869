// render-cluster: renders a NatsCluster into its route TLS, Services, PDB and NetworkPolicy, and
// creates the StatefulSet and ConfigMap of every server that does not exist yet; existing servers
// are changed only by step-rollout. One reconciler (reconciler.ts), of NatsClusters.
import { RENDER_FAILURE_ANNOTATION } from "../../shared/api/index.ts";
import { defineFunction } from "../../shared/runtime/index.ts";
import { natsCluster } from "./reconciler.ts";
import { routeCertificateDue } from "./status.ts";

export const renderCluster = defineFunction("render-cluster", [natsCluster], {
  // A mirrored trust's JWTs live in its status: their change is no echo here. A cluster whose
  // route certificate fell due is renewed on the resync tick after that time.
  caresAbout: (snapshot, now) => {
    const status: Record<string, unknown> = snapshot.status ?? {};
    return "operatorJWT" in status || "jwt" in status || routeCertificateDue(snapshot, now);
  },
  // A render that failed is not at rest, whoever wrote observedGeneration since (step-rollout):
  // the resync renders it again until the failure is cleared.
  showsFailure: (snapshot) => RENDER_FAILURE_ANNOTATION in (snapshot.metadata?.annotations ?? {}),
});

export const handle = renderCluster.handle;
