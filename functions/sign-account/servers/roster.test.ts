import { describe, expect, it } from "@jest/globals";
import { decideDeletion, decideDistribution, type Distribution } from "./distribution.ts";
import type { DistributionReading } from "./types.ts";
import { nextRoster } from "./roster.ts";

const JWT = `eyJ0eXAiOiJKV1QifQ.${Buffer.from(JSON.stringify({ iat: 2_000 })).toString("base64url")}.sig`;
const ALL = ["NA", "NB", "NC"];
const poll = (n: number) => `2026-12-03T10:00:${String(n * 10).padStart(2, "0")}.000Z`;

/** The distribution status after each poll, starting from every server answering. */
function afterPolls(answered: string[][]): Distribution | undefined {
  let status: Distribution | undefined = undefined;
  answered.forEach((ids, n) => {
    const reading: DistributionReading = {
      kind: "read",
      roster: ids,
      polledAt: poll(n),
      holdings: ids.map(() => JWT),
    };
    status = decideDistribution(reading, JWT, false, status).distribution;
  });
  return status;
}

describe("the roster an account's distribution is counted against", () => {
  it("keeps a server that misses a poll, and the JWT does not read current on every server meanwhile", () => {
    const status = afterPolls([ALL, ["NA", "NB"]]);
    expect(status).toMatchObject({
      servers: 3,
      current: 2,
      roster: [{ id: "NA" }, { id: "NB" }, { id: "NC", missedPolls: 1 }],
      polledAt: poll(1),
    });
    const verdict = decideDistribution(
      { kind: "read", roster: ["NA", "NB"], polledAt: poll(2), holdings: [JWT, JWT] },
      JWT,
      false,
      status,
    );
    expect(verdict.condition).toMatchObject({ status: "False", message: "2 of 3 servers hold this JWT" });
    expect(verdict.settled).toBe(false);
  });

  it("drops a server once it has missed three polls in a row", () => {
    expect(afterPolls([ALL, ["NA", "NB"], ["NA", "NB"]])?.roster).toEqual([
      { id: "NA" },
      { id: "NB" },
      { id: "NC", missedPolls: 2 },
    ]);
    const gone = afterPolls([ALL, ["NA", "NB"], ["NA", "NB"], ["NA", "NB"]]);
    expect(gone).toEqual({ servers: 2, current: 2, roster: [{ id: "NA" }, { id: "NB" }] });
  });

  it("resets the count of a server that answers again", () => {
    expect(afterPolls([ALL, ["NA", "NB"], ["NA", "NB"], ALL, ["NA", "NB"]])?.roster).toContainEqual({
      id: "NC",
      missedPolls: 1,
    });
  });

  it("counts polls closer together than the poll interval once, as a burst of events would make them", () => {
    const first = nextRoster({ roster: [{ id: "NA" }, { id: "NC" }] }, { answered: ["NA"], at: poll(1) });
    const soon = nextRoster(
      { roster: first.servers, ...(first.polledAt ? { polledAt: first.polledAt } : {}) },
      { answered: ["NA"], at: "2026-12-03T10:00:15.000Z" },
    );
    expect(soon.servers).toContainEqual({ id: "NC", missedPolls: 1 });
    expect(soon.polledAt).toBe(poll(1));
  });

  it("counts one poll once, however many reads of a delivery share it", () => {
    const once = nextRoster({ roster: [{ id: "NA" }, { id: "NC" }] }, { answered: ["NA"], at: poll(1) });
    const again = nextRoster(
      { roster: once.servers, ...(once.polledAt ? { polledAt: once.polledAt } : {}) },
      {
        answered: ["NA"],
        at: poll(1),
      },
    );
    expect(again.servers).toEqual([{ id: "NA" }, { id: "NC", missedPolls: 1 }]);
  });

  it("takes in a server that joins at once, and records no poll time while every server answers", () => {
    expect(nextRoster({ roster: [{ id: "NA" }] }, { answered: ["NA", "NB"], at: poll(1) })).toEqual({
      servers: [{ id: "NA" }, { id: "NB" }],
    });
  });

  it("keeps a deleted account's finalizer while a roster server that missed a poll has not answered", () => {
    const previous = { servers: 3, current: 3, roster: ALL.map((id) => ({ id })) };
    const verdict = decideDeletion(
      { kind: "read", roster: ["NA", "NB"], polledAt: poll(1), holdings: ["", ""] },
      previous,
    );
    expect(verdict.confirmed).toBe(false);
    expect(verdict.condition?.message).toBe("deleting: 0 of 3 servers still hold this account's JWT, 1 did not answer");
    expect(verdict.distribution?.roster).toContainEqual({ id: "NC", missedPolls: 1 });
  });
});
