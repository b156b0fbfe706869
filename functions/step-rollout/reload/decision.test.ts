import { describe, expect, it } from "@jest/globals";
import { appliedBy, decideConfigApply, judgeReload, type ConfigApplyInput } from "./decision.ts";
import { NO_RELOAD } from "./restart-reason.ts";

const NOW = new Date("2026-12-02T10:00:00Z");
const input = (overrides: Partial<ConfigApplyInput> = {}): ConfigApplyInput => ({
  target: "new",
  specMatches: true,
  restartReason: NO_RELOAD,
  configMap: { revision: "old", apply: "Restart" },
  systemUser: { kind: "ready" },
  now: NOW,
  ...overrides,
});
const reloading = (since: string) => ({ revision: "new", apply: "Reload", reloadSince: since });

describe("how a server takes its new config", () => {
  it("starts a reload when every change is reloadable and the system user is ready", () => {
    expect(decideConfigApply(input())).toEqual({ kind: "start-reload" });
  });

  it("restarts without system credentials, saying so", () => {
    expect(decideConfigApply(input({ systemUser: { kind: "none" } }))).toEqual({ kind: "restart", reason: NO_RELOAD });
  });

  it("restarts when the system user cannot be used, saying why", () => {
    expect(
      decideConfigApply(input({ systemUser: { kind: "unusable", message: "Secret x has no user.creds" } })),
    ).toEqual({ kind: "restart", reason: "cannot reload: Secret x has no user.creds" });
  });

  it("restarts the whole change when one path is restart-only (C17)", () => {
    expect(decideConfigApply(input({ restartReason: "lame_duck_duration is restart-only" }))).toEqual({
      kind: "restart",
      reason: "lame_duck_duration is restart-only",
    });
  });

  it("restarts when the StatefulSet spec changed, whatever the ConfigMap says", () => {
    const decision = decideConfigApply(
      input({
        specMatches: false,
        restartReason: "the StatefulSet spec is restart-only",
        configMap: reloading("2026-12-02T09:59:00Z"),
      }),
    );
    expect(decision).toEqual({ kind: "restart", reason: "the StatefulSet spec is restart-only" });
  });

  it("confirms a reload asked for within the window", () => {
    expect(decideConfigApply(input({ configMap: reloading("2026-12-02T09:58:00Z"), reportedRevision: "old" }))).toEqual(
      { kind: "confirm-reload" },
    );
  });

  it("records a reload the server already reports", () => {
    expect(decideConfigApply(input({ configMap: reloading("2026-12-02T09:50:00Z"), reportedRevision: "new" }))).toEqual(
      { kind: "reloaded" },
    );
  });

  it("gives a reload up after three minutes unconfirmed", () => {
    expect(decideConfigApply(input({ configMap: reloading("2026-12-02T09:57:00Z") }))).toEqual({
      kind: "reload-failed",
      reason: "reload failed: not confirmed within 3m",
    });
  });

  it("gives a reload up when the system user is gone", () => {
    expect(
      decideConfigApply(input({ configMap: reloading("2026-12-02T09:59:00Z"), systemUser: { kind: "none" } })),
    ).toEqual({ kind: "reload-failed", reason: `reload failed: ${NO_RELOAD}` });
  });

  it("keeps a server marked Restart at the target a restart, with the recorded reason", () => {
    const configMap = { revision: "new", apply: "Restart", restartReason: "reload failed: not confirmed within 3m" };
    expect(decideConfigApply(input({ configMap }))).toEqual({
      kind: "restart",
      reason: "reload failed: not confirmed within 3m",
    });
  });
});

describe("a reload, judged by VARZ before and after", () => {
  const before = { loadTime: "2026-12-02T10:00:00Z", revision: "old" };

  it("is confirmed when the load time advanced and the target revision is reported", () => {
    expect(judgeReload("new", { before, after: { loadTime: "2026-12-02T10:00:05Z", revision: "new" } })).toEqual({
      confirmed: true,
    });
  });

  it("is not confirmed when the server reloaded the old file", () => {
    expect(judgeReload("new", { before, after: { loadTime: "2026-12-02T10:00:05Z", revision: "old" } })).toEqual({
      confirmed: false,
      detail: "it reloaded revision old; the new config has not reached its file yet",
    });
  });

  it("is not confirmed when the load time did not move", () => {
    expect(judgeReload("new", { before, after: before })).toEqual({
      confirmed: false,
      detail: "its config load time did not advance",
    });
  });
});

describe("status.config.appliedBy", () => {
  it("is Reload when every server's config at the target came by reload", () => {
    expect(appliedBy("new", [reloading("t"), reloading("t")])).toBe("Reload");
  });

  it("is Restart when a server was created or restarted at the target", () => {
    expect(appliedBy("new", [reloading("t"), { revision: "new" }])).toBe("Restart");
    expect(appliedBy("new", [reloading("t"), { revision: "new", apply: "Restart" }])).toBe("Restart");
  });
});
