import { describe, expect, it } from "@jest/globals";
import { contextFiles, defaultContextName, defaultServerUrl, natsConfigDir, validContextName } from "./nats-context.ts";

describe("a NatsUser's creds as a nats CLI context", () => {
  it("goes where the nats CLI looks: $XDG_CONFIG_HOME/nats, else ~/.config/nats", () => {
    expect(natsConfigDir({}, "/home/me")).toBe("/home/me/.config/nats");
    expect(natsConfigDir({ XDG_CONFIG_HOME: "/xdg" }, "/home/me")).toBe("/xdg/nats");
  });

  it("writes the context JSON in context/<name>.json naming the creds file beside the contexts", () => {
    const files = contextFiles({
      configDir: "/home/me/.config/nats",
      name: "shop-app",
      url: "nats://demo.shop.svc:4222",
      user: { namespace: "shop", name: "app" },
    });
    expect(files).toEqual({
      contextPath: "/home/me/.config/nats/context/shop-app.json",
      credsPath: "/home/me/.config/nats/creds/nats-operator/shop-app.creds",
      context: {
        description: "NatsUser shop/app (kubectl nats-operator creds)",
        url: "nats://demo.shop.svc:4222",
        creds: "/home/me/.config/nats/creds/nats-operator/shop-app.creds",
      },
    });
  });

  it("puts the creds where --creds-file says", () => {
    const files = contextFiles({
      configDir: "/c",
      name: "x",
      url: "nats://n:4222",
      user: { namespace: "a", name: "b" },
      credsPath: "/secure/app.creds",
    });
    expect(files.credsPath).toBe("/secure/app.creds");
    expect(files.context.creds).toBe("/secure/app.creds");
  });

  it("names the context <namespace>-<user> and refuses names the CLI would not take", () => {
    expect(defaultContextName("shop", "app")).toBe("shop-app");
    expect(validContextName("shop-app")).toBe(true);
    expect(validContextName("../evil")).toBe(false);
    expect(validContextName("a/b")).toBe(false);
  });

  it("defaults the URL to the one client endpoint found, and to none when there are several or none", () => {
    expect(defaultServerUrl(["nats://a:4222", undefined, "nats://a:4222"])).toBe("nats://a:4222");
    expect(defaultServerUrl(["nats://a:4222", "nats://b:4222"])).toBeUndefined();
    expect(defaultServerUrl([undefined])).toBeUndefined();
  });
});
