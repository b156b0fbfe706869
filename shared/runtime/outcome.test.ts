import { describe, expect, it } from "@jest/globals";
import { conflict, done, httpStatusFor, malformed, refused, retry, skipped } from "./outcome.ts";

describe("httpStatusFor", () => {
  it.each([
    ["done", done(), 200],
    ["nothing to do", skipped("echo"), 202],
    ["a conflict, which the Broker retries", conflict("stale"), 409],
    ["a transient failure, which the Broker retries", retry("api down"), 503],
    ["a permanent refusal, which is reported on the object and not retried", refused("422 Invalid"), 200],
    ["a malformed event, which the Broker dead-letters", malformed("no name"), 400],
  ])("answers %s with %i", (_what, outcome, status) => {
    expect(httpStatusFor(outcome)).toBe(status);
  });
});
