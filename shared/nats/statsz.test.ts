import { describe, expect, it } from "@jest/globals";
import { lateServers } from "./statsz.ts";

const answer = (name: string, routes: string[]) => ({
  server: { id: `N${name}`, name },
  statsz: { routes: routes.map((r) => ({ name: r })) },
});
const CLUSTER = ["dist-0", "dist-1", "dist-2"];
const peersOf = (name: string) => CLUSTER.filter((n) => n !== name);

describe("servers late to a STATSZ poll", () => {
  it("are the servers a route names that did not answer", () => {
    expect(lateServers([answer("dist-0", peersOf("dist-0"))])).toEqual(["dist-1", "dist-2"]);
  });

  it("are none once every routed server answered", () => {
    expect(lateServers(CLUSTER.map((n) => answer(n, peersOf(n))))).toEqual([]);
  });

  it("are none for a lone server", () => {
    expect(lateServers([answer("solo", [])])).toEqual([]);
  });
});
