import { describe, expect, it } from "@jest/globals";
import { issuedRouteSecrets } from "../../test/fixtures/cluster/route-secrets.ts";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import type { Cluster } from "./cluster.ts";
import { planCluster, routeTlsPlan } from "./plan/cluster-plan.ts";
import type { PlanInputs } from "./plan-inputs.ts";
import { planOf } from "./plan-of.ts";
import { type RouteSecrets, routeSecret } from "./route-tls/route-secrets.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const YEAR = 365 * 24 * 3600 * 1000;
const OPTIONS = { allowGatewayWithoutTls: false };

const issuedRoutes = (cluster: Cluster, issued = NOW): RouteSecrets => issuedRouteSecrets(cluster, issued);

const inputs = (cluster: Cluster, routes: RouteSecrets): PlanInputs => ({
  cluster,
  routes,
  listeners: {},
  leafRemotes: { ready: [], refused: [] },
});

describe("planOf, the plan render-cluster renders and step-rollout rolls out", () => {
  it("is made with the route certificate the servers mount, once it is judged good", () => {
    const cluster = demoCluster();
    const routes = issuedRoutes(cluster);
    const planned = planOf(inputs(cluster, routes), NOW, OPTIONS);
    expect(planned.certificatesReady).toBe(true);
    expect(planned.certificateWait).toBeUndefined();
    const data = routes.mounted?.data ?? {};
    expect(planned.plan.revision).toBe(planCluster({ cluster, routeTlsData: data }).revision);
  });

  it("waits for a route certificate that is due, as render-cluster waits until it has renewed it", () => {
    const cluster = demoCluster();
    const planned = planOf(inputs(cluster, issuedRoutes(cluster, new Date(NOW.getTime() - YEAR))), NOW, OPTIONS);
    expect(planned.certificatesReady).toBe(false);
    expect(planned.certificateWait).toMatchObject({ reason: "RouteCertificateNotReady" });
    expect(planned.plan.revision).toBe(planCluster({ cluster }).revision);
  });

  it("waits for a named route Secret until it holds the certificate, its key and the CA", () => {
    const cluster = demoCluster({ routes: { tls: { secretRef: { name: "mine" } } } });
    const partial = routeSecret(cluster, "mine", { "tls.crt": "x" });
    const planned = planOf(inputs(cluster, { plan: routeTlsPlan(cluster), mounted: partial }), NOW, OPTIONS);
    expect(planned.certificatesReady).toBe(false);
    expect(planned.certificateWait).toEqual({
      reason: "RouteCertificateNotReady",
      message: "Secret mine does not hold tls.crt, tls.key and ca.crt yet",
    });
  });

  it("holds the servers while the trust is refused, planned without auth for names only", () => {
    const cluster = demoCluster();
    const refused = { kind: "refused", reason: "TrustNotFound", message: "no trust" } as const;
    const planned = planOf({ ...inputs(cluster, issuedRoutes(cluster)), refused }, NOW, OPTIONS);
    expect(planned.hold).toEqual({ reason: "TrustNotFound", message: "no trust" });
  });
});
