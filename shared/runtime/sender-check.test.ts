import { afterEach, describe, expect, it } from "@jest/globals";
import { HTTP } from "cloudevents";
import { clusterEvent } from "../../test/support/events.ts";
import { offlineDeps, scriptedFunction } from "../../test/support/functions.ts";
import { done } from "./outcome.ts";
import { senderCheck, senderCheckSettings, type TokenReview, type TokenReviewer } from "./sender-check.ts";
import { startServer, type RunningServer } from "./server.ts";

const audience = "serving.knative.dev/service/nats-operator/render-cluster";
const trigger = "system:serviceaccount:nats-operator:render-cluster-oidc-eventing.knative.dev-trigger";

/** A JWT-shaped token (unsigned: the fake review is what vouches for it) expiring at `exp` seconds. */
function token(name: string, exp = Math.floor(Date.now() / 1000) + 3600): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "RS256" })}.${part({ sub: name, exp })}.signature`;
}

/** A TokenReview that knows some tokens: each valid for its audiences, as the API server answers. */
function fakeReviews(tokens: Record<string, { username: string; audiences: string[] }>) {
  const asked: string[] = [];
  const review: TokenReviewer = async (presented, wanted): Promise<TokenReview> => {
    asked.push(presented);
    const known = tokens[presented];
    if (known === undefined || !known.audiences.includes(wanted)) return { kind: "refused" };
    return { kind: "authenticated", username: known.username, audiences: [wanted] };
  };
  return { review, asked };
}

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serving(review: TokenReviewer, lines: string[] = []) {
  const fn = scriptedFunction(async () => done("applied"));
  server = await startServer({
    functions: [fn],
    deps: offlineDeps(lines),
    port: 0,
    host: "127.0.0.1",
    senderCheck: senderCheck({ audience, subjects: [trigger], review }),
  });
  return { fn, url: `http://127.0.0.1:${server.port}/` };
}

/** A NatsCluster event as the Broker delivers it (binary mode), with a bearer token if given. */
function post(url: string, bearer?: string): Promise<Response> {
  const message = HTTP.binary(clusterEvent());
  return fetch(url, {
    method: "POST",
    headers: {
      ...(message.headers as Record<string, string>),
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: message.body as string,
  });
}

describe("the sender check (Knative Eventing's OIDC)", () => {
  it("refuses a request without a bearer token with 401, before the function runs", async () => {
    const { fn, url } = await serving(fakeReviews({}).review);
    const response = await post(url);
    expect([response.status, await response.json(), fn.calls]).toEqual([401, { status: "unauthenticated" }, 0]);
  });

  it("refuses a token issued for another audience", async () => {
    const other = token("other");
    const { fn, url } = await serving(
      fakeReviews({ [other]: { username: trigger, audiences: ["mt-broker-filter"] } }).review,
    );
    expect([(await post(url, other)).status, fn.calls]).toEqual([401, 0]);
  });

  it("refuses a valid token for this audience from another namespace's ServiceAccount", async () => {
    const foreign = token("foreign");
    const lines: string[] = [];
    const { fn, url } = await serving(
      fakeReviews({ [foreign]: { username: "system:serviceaccount:team-a:default", audiences: [audience] } }).review,
      lines,
    );
    expect([(await post(url, foreign)).status, fn.calls]).toEqual([401, 0]);
    expect(lines.join("")).toContain("system:serviceaccount:team-a:default is not accepted");
    expect(lines.join("")).not.toContain(foreign);
  });

  it("hands an event from an accepted sender to the function", async () => {
    const good = token("good");
    const { fn, url } = await serving(fakeReviews({ [good]: { username: trigger, audiences: [audience] } }).review);
    expect([(await post(url, good)).status, fn.calls]).toEqual([200, 1]);
  });

  it("reviews an accepted token once while it is valid", async () => {
    const good = token("good");
    const reviews = fakeReviews({ [good]: { username: trigger, audiences: [audience] } });
    const { fn, url } = await serving(reviews.review);
    for (let i = 0; i < 3; i++) expect((await post(url, good)).status).toBe(200);
    expect([reviews.asked.length, fn.calls]).toEqual([1, 3]);
  });

  it("answers 503, which the Broker retries, when the API server cannot review the token", async () => {
    const { fn, url } = await serving(async () => ({ kind: "failed", message: "connection refused" }));
    expect([(await post(url, token("any"))).status, fn.calls]).toEqual([503, 0]);
  });

  it("leaves the health endpoints open", async () => {
    const { url } = await serving(fakeReviews({}).review);
    expect((await fetch(`${url}healthz`)).status).toBe(200);
  });
});

describe("the sender check's memory", () => {
  it("forgets an accepted token when it expires", async () => {
    let now = 1_000_000_000_000;
    const good = token("good", now / 1000 + 60);
    const reviews = fakeReviews({ [good]: { username: trigger, audiences: [audience] } });
    const check = senderCheck({ audience, subjects: [trigger], review: reviews.review, now: () => now });
    await check(`Bearer ${good}`);
    now += 61_000;
    expect((await check(`Bearer ${good}`)).kind).toBe("accepted");
    expect(reviews.asked).toHaveLength(2);
  });

  it("remembers a refusal for a few seconds only", async () => {
    let now = 1_000_000_000_000;
    const reviews = fakeReviews({});
    const check = senderCheck({ audience, subjects: [trigger], review: reviews.review, now: () => now });
    await check(`Bearer ${token("forged")}`);
    await check(`Bearer ${token("forged")}`);
    now += 10_000;
    await check(`Bearer ${token("forged")}`);
    expect(reviews.asked).toHaveLength(2);
  });

  it("holds at most cacheSize tokens", async () => {
    const tokens = ["a", "b", "c"].map((n) => token(n));
    const reviews = fakeReviews(
      Object.fromEntries(tokens.map((t) => [t, { username: trigger, audiences: [audience] }])),
    );
    const check = senderCheck({ audience, subjects: [trigger], review: reviews.review, cacheSize: 2 });
    for (const t of [...tokens, tokens[0]]) await check(`Bearer ${t}`);
    expect(reviews.asked).toHaveLength(4);
  });

  it("accepts a subject ending in * as a prefix, as an EventPolicy's sub does", async () => {
    const good = token("good");
    const reviews = fakeReviews({ [good]: { username: trigger, audiences: [audience] } });
    const check = senderCheck({
      audience,
      subjects: ["system:serviceaccount:nats-operator:*"],
      review: reviews.review,
    });
    expect((await check(`Bearer ${good}`)).kind).toBe("accepted");
  });
});

describe("the sender check's settings", () => {
  it("are off when neither variable is set, and refused when only one is", () => {
    expect(senderCheckSettings({})).toEqual({ ok: true });
    expect(senderCheckSettings({ NATS_OPERATOR_OIDC_AUDIENCE: audience }).ok).toBe(false);
    expect(senderCheckSettings({ NATS_OPERATOR_OIDC_SUBJECTS: trigger }).ok).toBe(false);
    expect(
      senderCheckSettings({ NATS_OPERATOR_OIDC_AUDIENCE: audience, NATS_OPERATOR_OIDC_SUBJECTS: ` ${trigger}, a ` }),
    ).toEqual({
      ok: true,
      settings: { audience, subjects: [trigger, "a"] },
    });
  });
});
