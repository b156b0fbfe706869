import { Writable } from "node:stream";
import { describe, expect, it } from "@jest/globals";
import { createLogger } from "./logger.ts";
import { redactCredentials, redactStrings } from "./redact.ts";

describe("redactCredentials", () => {
  it("replaces the user and password of a URL with ***", () => {
    expect(redactCredentials("nats://user:pass@host:4222")).toBe("nats://***@host:4222");
    expect(redactCredentials("tls://s3cr3t-token@host:4222")).toBe("tls://***@host:4222");
  });

  it("leaves URLs without credentials, and text without URLs, as they are", () => {
    expect(redactCredentials("tls://host:4222, nats://[::1]:4222")).toBe("tls://host:4222, nats://[::1]:4222");
    expect(redactCredentials("mail ops@example.com: the stream is full")).toBe(
      "mail ops@example.com: the stream is full",
    );
  });

  it("covers every URL of a list, joined with or without spaces, and in JSON", () => {
    expect(redactCredentials("cannot connect to nats://a:b@h1:4222, nats://c:d@h2:4222: refused")).toBe(
      "cannot connect to nats://***@h1:4222, nats://***@h2:4222: refused",
    );
    expect(redactCredentials('["nats://a:b@h1:4222","nats://c:d@h2:4222"]')).toBe(
      '["nats://***@h1:4222","nats://***@h2:4222"]',
    );
    expect(redactCredentials("nats://a:b@h1,nats://c:d@h2")).toBe("nats://***@h1,nats://***@h2");
  });

  it("covers a password holding an unescaped @, and user:pass@host without a scheme", () => {
    expect(redactCredentials("nats://user:p@ss@host:4222")).toBe("nats://***@host:4222");
    expect(redactCredentials("servers user:pass@host:4222, other:x@h2")).toBe("servers ***@host:4222, ***@h2");
  });
});

describe("redactStrings", () => {
  it("redacts every string of a status, keeping its shape", () => {
    const status = {
      observedGeneration: 2,
      conditions: [{ type: "Ready", status: "False", message: "cannot connect to nats://u:p@h:4222" }],
    };
    expect(redactStrings(status)).toEqual({
      observedGeneration: 2,
      conditions: [{ type: "Ready", status: "False", message: "cannot connect to nats://***@h:4222" }],
    });
  });
});

describe("the logger", () => {
  it("writes no URL credentials, in messages or fields", () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString("utf8"));
        done();
      },
    });
    const log = createLogger({ level: "info", destination });
    log.warn(
      { servers: ["nats://user:pass@host:4222"], err: new Error("no nats://user:pass@host") },
      "at nats://user:pass@host",
    );
    expect(lines.join("")).not.toContain("user:pass");
    expect(lines.join("")).toContain("nats://***@host:4222");
  });
});
