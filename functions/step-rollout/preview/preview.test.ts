import { describe, expect, it } from "@jest/globals";
import { formatPreview, type PreviewReport } from "./preview.ts";

const report = (extra: Partial<PreviewReport> = {}): PreviewReport => ({
  cluster: "nats/demo",
  revision: { current: "aaaa", proposed: "bbbb" },
  reloads: [],
  restarts: { order: [], atOnce: false },
  removals: [],
  next: "no step now",
  progressing: { status: "False", reason: "UpToDate", message: "every server runs the target revision" },
  ...extra,
});

describe("preview as printed", () => {
  it("lists the restarts in order with their reason and names the meta leader", () => {
    const text = formatPreview(
      report({
        restarts: {
          order: ["demo-2", "demo-0", "demo-1"],
          atOnce: false,
          reason: "the StatefulSet spec is restart-only",
        },
        metaLeader: "demo-1",
        next: "restarting demo-2",
      }),
    );
    expect(text).toContain("revision aaaa -> bbbb");
    expect(text).toContain("restart one at a time: demo-2, demo-0, demo-1");
    expect(text).toContain("restartReason: the StatefulSet spec is restart-only");
    expect(text).toContain("meta leader: demo-1 (its server goes last)");
    expect(text).toContain("next step: restarting demo-2");
  });

  it("says a reload restarts nothing", () => {
    const text = formatPreview(report({ reloads: ["demo-0", "demo-1", "demo-2"] }));
    expect(text).toContain("reload (no restart): demo-0, demo-1, demo-2");
    expect(text).not.toContain("restart one at a time");
  });

  it("says what would hold the rollout", () => {
    const text = formatPreview(report({ blocked: { reason: "AuthChangeBlocked", message: "restart-all needed" } }));
    expect(text).toContain("blocked: AuthChangeBlocked: restart-all needed");
  });

  it("says when the proposal changes no config", () => {
    expect(formatPreview(report({ revision: { current: "bbbb", proposed: "bbbb" } }))).toContain(
      "revision bbbb: no config change",
    );
  });
});
