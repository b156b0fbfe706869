import { describe, expect, it } from "@jest/globals";
import { issuedRouteSecrets } from "../../test/fixtures/cluster/route-secrets.ts";
import { RENDER_FAILURE_ANNOTATION, RENDER_FAILURE_REASON_ANNOTATION } from "../../shared/api/index.ts";
import type { KubeObject } from "../../shared/kube/index.ts";
import { demoCluster } from "../../test/fixtures/cluster/clusters.ts";
import {
  type Cluster,
  claimName,
  planCluster,
  routeTlsPlan,
  type RouteSecrets,
  serverLabels,
} from "../cluster/index.ts";
import { decide, decideRouteTls } from "./decide.ts";
import type { HeldCluster, RenderableCluster, RenderedObjects } from "./observe.ts";

const NOW = new Date("2026-12-03T10:00:00.000Z");
const DAY = 24 * 3600 * 1000;
const FOREIGN = "not controlled by this NatsCluster, left untouched";

const routeSecrets = (cluster: Cluster, issued = NOW): RouteSecrets => issuedRouteSecrets(cluster, issued);

const nothingRendered = (): RenderedObjects => ({ shared: new Map(), servers: new Map() });

/** Every object `running`'s render makes, as the API server holds them. */
function renderedFrom(running: Cluster, routes: RouteSecrets): RenderedObjects {
  const plan = planCluster({
    cluster: running,
    ...(routes.mounted?.data ? { routeTlsData: routes.mounted.data } : {}),
  });
  return {
    shared: new Map(plan.shared.map((o): [string, KubeObject] => [`${o.kind}/${o.metadata.name}`, o])),
    servers: new Map(plan.servers.map((s) => [s.name, { statefulSet: s.statefulSet, configMap: s.configMap }])),
  };
}

function observed(
  cluster: Cluster,
  routes: RouteSecrets = routeSecrets(cluster),
  rendered = nothingRendered(),
): RenderableCluster {
  return {
    kind: "render",
    cluster,
    routes,
    listeners: {},
    leafRemotes: { ready: [], refused: [] },
    certificates: { kind: "known", byName: new Map(), issuers: new Map() },
    rendered,
  };
}

const held = (cluster: Cluster): HeldCluster => ({
  kind: "held",
  cluster,
  refused: { kind: "refused", reason: "TrustNotFound", message: "NatsOperatorTrust nats-system/t does not exist" },
});

const writes = (decision: ReturnType<typeof decide>) =>
  decision.writes.map((w) => `${w.kind} ${w.object.kind} ${w.object.metadata.name}`);
const scheduleNames = (decision: ReturnType<typeof decide>) =>
  decision.schedules.map((s) => `${s.schedule.name} ${s.poll === false ? "off" : JSON.stringify(s.poll)}`);

describe("render-cluster decision", () => {
  it("creates every server's ConfigMap and StatefulSet, and the shared objects, on the first render", () => {
    const cluster = demoCluster();
    const decision = decide(observed(cluster), NOW);
    expect(writes(decision)).toEqual([
      "apply Service demo",
      "apply Service demo-headless",
      "apply PodDisruptionBudget demo",
      "apply NetworkPolicy demo",
      "apply ConfigMap demo-0-config",
      "create StatefulSet demo-0",
      "apply ConfigMap demo-1-config",
      "create StatefulSet demo-1",
      "apply ConfigMap demo-2-config",
      "create StatefulSet demo-2",
    ]);
    expect(decision.status).toMatchObject({ replicas: 3, endpoints: { client: "nats://demo.nats-system.svc:4222" } });
    expect(decision.failure).toBeUndefined();
    expect(decision.events).toEqual([]);
    expect(decision.summary).toMatch(/^revision \w+; creating demo-0, demo-1, demo-2$/);
  });

  it("changes no existing server: a new spec is step-rollout's to roll out", () => {
    const running = demoCluster();
    const routes = routeSecrets(running);
    const resized = demoCluster({ resources: { requests: { cpu: "1", memory: "5Gi" }, limits: { memory: "5Gi" } } });
    const decision = decide(observed(resized, routes, renderedFrom(running, routes)), NOW);
    expect(writes(decision)).toEqual([]);
    expect(decision.summary).toMatch(/^revision \w+$/);
  });

  it("puts back the missing ConfigMap of a server already on the revision", () => {
    const cluster = demoCluster();
    const routes = routeSecrets(cluster);
    const rendered = renderedFrom(cluster, routes);
    rendered.servers.set("demo-1", { ...rendered.servers.get("demo-1"), configMap: undefined });
    expect(writes(decide(observed(cluster, routes, rendered), NOW))).toEqual(["apply ConfigMap demo-1-config"]);
  });

  it("holds a cluster whose trust is refused: records the failure with its reason, tells it once and polls for the trust", () => {
    const decision = decide(held(demoCluster()), NOW);
    expect(decision.writes).toEqual([]);
    expect(decision.status).toBeUndefined();
    expect(decision.failure).toEqual({
      kind: "set",
      failure: { reason: "TrustNotFound", message: "NatsOperatorTrust nats-system/t does not exist" },
    });
    expect(decision.events).toEqual([
      { type: "Warning", reason: "TrustNotFound", note: "NatsOperatorTrust nats-system/t does not exist" },
    ]);
    expect(scheduleNames(decision)).toEqual(['demo-render-poll {"every":"30s"}']);
    expect(decision.summary).toBe("held, TrustNotFound: NatsOperatorTrust nats-system/t does not exist");
    expect(decideRouteTls(held(demoCluster()), NOW)).toBeUndefined();
  });

  it("keeps polling for the trust without writing or telling the refusal again once it is recorded", () => {
    const recorded = demoCluster(
      {},
      {
        annotations: {
          [RENDER_FAILURE_ANNOTATION]: "NatsOperatorTrust nats-system/t does not exist",
          [RENDER_FAILURE_REASON_ANNOTATION]: "TrustNotFound",
        },
      },
    );
    const decision = decide(held(recorded), NOW);
    expect(decision.failure).toBeUndefined();
    expect(decision.events).toEqual([]);
    expect(scheduleNames(decision)).toEqual(['demo-render-poll {"every":"30s"}']);
  });

  it("clears a recorded failure once the render succeeds, and drops the trust poll", () => {
    const recovered = demoCluster(
      {},
      { annotations: { [RENDER_FAILURE_ANNOTATION]: "gone", [RENDER_FAILURE_REASON_ANNOTATION]: "TrustNotFound" } },
    );
    const decision = decide(observed(recovered), NOW);
    expect(decision.failure).toEqual({ kind: "clear" });
    expect(decision.events).toEqual([]);
    expect(scheduleNames(decision)).toContain("demo-render-poll off");
  });

  it("leaves a foreign object of a rendered name untouched and reports it, creating the servers meanwhile", () => {
    const taken: KubeObject = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "demo", namespace: "nats-system", labels: { owner: "someone-else" } },
    };
    const rendered = nothingRendered();
    rendered.shared.set("Service/demo", taken);
    const decision = decide(observed(demoCluster(), undefined, rendered), NOW);
    expect(writes(decision)).not.toContain("apply Service demo");
    expect(writes(decision)).toContain("create StatefulSet demo-0");
    const message = `${FOREIGN}: Service demo`;
    expect(decision.failure).toEqual({ kind: "set", failure: { reason: "ReconcileFailed", message } });
    expect(decision.events).toEqual([{ type: "Warning", reason: "ReconcileFailed", note: message }]);
    expect(decision.summary).toContain("foreign: Service demo");
  });

  it("reports route TLS Secrets held by someone else, and creates no server that would mount them", () => {
    const cluster = demoCluster();
    const theirs: RouteSecrets = {
      ...routeSecrets(cluster),
      mounted: { apiVersion: "v1", kind: "Secret", metadata: { name: "demo-routes-tls", namespace: "nats-system" } },
    };
    expect(decideRouteTls(observed(cluster, theirs), NOW)).toBeUndefined();
    const decision = decide(observed(cluster, theirs), NOW);
    expect(writes(decision).filter((w) => w.includes("StatefulSet"))).toEqual([]);
    expect(decision.failure).toMatchObject({ kind: "set", failure: { message: `${FOREIGN}: Secret demo-routes-tls` } });
  });

  it("issues the route CA and leaf when missing, before the render", () => {
    const cluster = demoCluster();
    expect(decideRouteTls(observed(cluster, { plan: routeTlsPlan(cluster) }), NOW)).toEqual({
      kind: "issue",
      ca: "create",
      leaf: "create",
      reason: "no usable route CA",
    });
  });

  it("renews the leaf under the same CA once a third of its life remains", () => {
    const cluster = demoCluster();
    const routes = routeSecrets(cluster, new Date(NOW.getTime() - 250 * DAY));
    expect(decideRouteTls(observed(cluster, routes), NOW)).toEqual({
      kind: "issue",
      ca: "keep",
      leaf: "renew",
      reason: "a third of the route certificate's life remains",
    });
  });

  it("records when the leaf expires and falls due, asks for no tick, and has no route TLS to issue meanwhile", () => {
    const cluster = demoCluster();
    const decision = decide(observed(cluster), NOW);
    expect(decideRouteTls(observed(cluster), NOW)).toBeUndefined();
    // Issued at NOW for a year: due once a third remains, about 243 days on (2027-08-03).
    expect(decision.status?.routeCertificate?.renewAt?.slice(0, 10)).toBe("2027-08-03");
    expect(decision.status?.routeCertificate?.notAfter?.slice(0, 4)).toBe("2027");
    expect(scheduleNames(decision)).toEqual([]);
  });

  it("asks step-rollout to roll out a leaf renewed in this delivery", () => {
    const cluster = demoCluster();
    const decision = decide(observed(cluster, { ...routeSecrets(cluster), renewed: true }), NOW);
    expect(scheduleNames(decision)).toContain('demo-rollout {"every":"10s"}');
  });

  it("waits for a named route Secret before creating servers, and says so", () => {
    const cluster = demoCluster({ routes: { tls: { secretRef: { name: "mine" } } } });
    const decision = decide(observed(cluster, { plan: routeTlsPlan(cluster) }), NOW);
    expect(writes(decision).filter((w) => w.includes("StatefulSet"))).toEqual([]);
    expect(decision.summary).toContain("Secret mine does not hold tls.crt, tls.key and ca.crt yet");
  });

  it("holds a replaced server back while its old claim terminates, and polls for it", () => {
    const cluster = demoCluster();
    const routes = routeSecrets(cluster);
    const rendered = renderedFrom(cluster, routes);
    const claim: KubeObject = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: claimName("demo-1"), namespace: "nats-system", deletionTimestamp: NOW.toISOString() },
    };
    rendered.servers.set("demo-1", { claim });
    const decision = decide(observed(cluster, routes, rendered), NOW);
    expect(writes(decision)).toEqual([]);
    expect(decision.summary).toContain("waiting for the old claim of demo-1");
    expect(scheduleNames(decision)).toContain('demo-render-poll {"every":"10s"}');
  });

  describe("a server being replaced, deleted on its way out (status.removals Deleting)", () => {
    const DELETING_SINCE = new Date(NOW.getTime() - 60_000);
    const replacing = () => {
      const base = demoCluster();
      return {
        ...base,
        status: { removals: [{ name: "demo-1", phase: "Deleting" as const, since: DELETING_SINCE.toISOString() }] },
      };
    };
    const claimOf = (made: Date, labels = serverLabels("demo", "demo-1")): KubeObject => ({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: claimName("demo-1"), namespace: "nats-system", labels, creationTimestamp: made.toISOString() },
    });
    const decideWith = (cluster: Cluster, claim: KubeObject | undefined) => {
      const routes = routeSecrets(cluster);
      const rendered = renderedFrom(cluster, routes);
      rendered.servers.set("demo-1", claim ? { claim } : {});
      return decide(observed(cluster, routes, rendered), NOW);
    };

    it("is not recreated on the claim its deletion left (StatefulSet gone, claim not yet deleted)", () => {
      const decision = decideWith(replacing(), claimOf(new Date("2026-01-01T00:00:00Z")));
      expect(writes(decision)).toEqual([]);
      expect(decision.summary).toContain("waiting for the old claim of demo-1");
      expect(scheduleNames(decision)).toContain('demo-render-poll {"every":"10s"}');
    });

    it("is recreated once the old claim is gone", () => {
      const decision = decideWith(replacing(), undefined);
      expect(writes(decision).filter((w) => w.includes("StatefulSet"))).toHaveLength(1);
    });

    it("is recreated when the claim there is newer than the deletion (the replacement's own)", () => {
      const decision = decideWith(replacing(), claimOf(new Date(NOW.getTime() - 1000)));
      expect(writes(decision).filter((w) => w.includes("StatefulSet"))).toHaveLength(1);
    });

    it("is recreated on a claim someone else made (without the server's labels), as deletion leaves it", () => {
      const decision = decideWith(replacing(), claimOf(new Date("2026-01-01T00:00:00Z"), {}));
      expect(writes(decision).filter((w) => w.includes("StatefulSet"))).toHaveLength(1);
    });
  });

  describe("a cluster joining a supercluster's JetStream meta group", () => {
    const joining = (gateway = true) =>
      demoCluster(
        gateway
          ? {
              gateway: {
                discovery: "Explicit",
                remotes: [
                  { name: "central", url: "nats://central.example:7222" },
                  { name: "demo", url: "nats://demo-gateway.nats-system.svc:7222" },
                ],
                tls: { secretRef: { name: "gw" } },
              },
            }
          : {},
        { creationTimestamp: NOW.toISOString() },
      );
    const listeners = { gateway: { "tls.crt": "c", "tls.key": "k", "ca.crt": "a" } };
    const claimMade = (at: Date): KubeObject => ({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: claimName("demo-0"), namespace: "nats-system", creationTimestamp: at.toISOString() },
    });
    const withClaim = (cluster: Cluster, claim: KubeObject) => {
      const rendered = nothingRendered();
      rendered.servers.set("demo-0", { claim });
      return { ...observed(cluster, routeSecrets(cluster), rendered), listeners };
    };

    it("creates no server on a claim older than the NatsCluster, reads OwnMetaGroup naming the claim, and polls", () => {
      const cluster = joining();
      const decision = decide(withClaim(cluster, claimMade(new Date(NOW.getTime() - DAY))), NOW);
      expect(writes(decision).filter((w) => w.includes("demo-0"))).toEqual([]);
      expect(writes(decision)).toContain("create StatefulSet demo-1");
      expect(decision.failure).toEqual({
        kind: "set",
        failure: {
          reason: "OwnMetaGroup",
          message: expect.stringMatching(
            /^data-demo-0-0 predates this NatsCluster .* \(kubectl -n nats-system delete pvc data-demo-0-0\)/,
          ),
        },
      });
      expect(scheduleNames(decision)).toContain('demo-render-poll {"every":"10s"}');
    });

    it("creates the server on a claim made after the NatsCluster", () => {
      const decision = decide(withClaim(joining(), claimMade(new Date(NOW.getTime() + 1000))), NOW);
      expect(writes(decision)).toContain("create StatefulSet demo-0");
      expect(decision.failure).toBeUndefined();
    });

    it("writes no server of a running cluster given remotes: whether they join is step-rollout's to judge (OwnMetaGroup)", () => {
      const running = joining(false);
      const routes = routeSecrets(running);
      const decision = decide({ ...observed(joining(), routes, renderedFrom(running, routes)), listeners }, NOW);
      expect(writes(decision).filter((w) => /ConfigMap|StatefulSet/.test(w))).toEqual([]);
      expect(decision.failure).toBeUndefined();
    });

    it("reuses an older claim when the cluster joins no supercluster", () => {
      const decision = decide(withClaim(joining(false), claimMade(new Date(NOW.getTime() - DAY))), NOW);
      expect(writes(decision)).toContain("create StatefulSet demo-0");
    });
  });

  it("decides the same twice from the same observation", () => {
    const seen = observed(demoCluster());
    expect(decide(seen, NOW)).toEqual(decide(seen, NOW));
  });
});
