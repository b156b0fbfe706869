import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { clusterEvent } from "../../test/support/events.ts";
import { postEvent } from "../local/replay.ts";

describe("shutdown on SIGTERM", () => {
  it("finishes the in-flight event, then exits 0", async () => {
    const child = spawn(process.execPath, ["test/support/slow-server.ts"], {
      env: { ...process.env, SLOW_MS: "800" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const [chunk] = (await once(child.stdout, "data")) as [Buffer];
    const url = `http://127.0.0.1:${chunk.toString().trim()}/`;

    const pending = postEvent(url, clusterEvent());
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill("SIGTERM");

    const result = await pending;
    const [code] = (await once(child, "exit")) as [number];
    expect(result.status).toBe(200);
    expect([result.outcome, result.detail]).toEqual(["done", "finished after SIGTERM"]);
    expect(code).toBe(0);
  });
});
