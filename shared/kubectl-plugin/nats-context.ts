// A NatsUser's creds as a `nats` CLI context: the files the CLI reads and what they hold. Pure.
import { join } from "node:path";

/** A context as the nats CLI stores it in ~/.config/nats/context/<name>.json (the fields used here). */
export interface NatsContext {
  description: string;
  url: string;
  creds: string;
}

export interface ContextFiles {
  /** Where the context JSON goes. */
  contextPath: string;
  /** Where the creds file goes (mode 0600). */
  credsPath: string;
  context: NatsContext;
}

/**
 * The nats CLI's configuration directory: $XDG_CONFIG_HOME/nats, else ~/.config/nats (the CLI's
 * own rule, natscontext's parentDir).
 */
export function natsConfigDir(env: NodeJS.ProcessEnv, home: string): string {
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "nats");
}

/** A context name the CLI accepts (it refuses path separators and `..`): the user's namespace and name. */
export function defaultContextName(namespace: string, user: string): string {
  return `${namespace}-${user}`;
}

export function validContextName(name: string): boolean {
  return /^[A-Za-z0-9_.-]+$/.test(name) && !name.includes("..");
}

/**
 * The context and where its files go: the context JSON in <config>/context/<name>.json, the creds
 * beside the contexts in <config>/creds/nats-operator/<name>.creds unless `credsPath` names a file.
 */
export function contextFiles(options: {
  configDir: string;
  name: string;
  url: string;
  user: { namespace: string; name: string };
  credsPath?: string;
}): ContextFiles {
  const credsPath = options.credsPath ?? join(options.configDir, "creds", "nats-operator", `${options.name}.creds`);
  return {
    contextPath: join(options.configDir, "context", `${options.name}.json`),
    credsPath,
    context: {
      description: `NatsUser ${options.user.namespace}/${options.user.name} (kubectl nats-operator creds)`,
      url: options.url,
      creds: credsPath,
    },
  };
}

/**
 * The server URL a context defaults to: the one client endpoint among the clusters given (those in
 * the user's and its account's namespaces); undefined when there is none or more than one.
 */
export function defaultServerUrl(endpoints: readonly (string | undefined)[]): string | undefined {
  const found = [...new Set(endpoints.filter((e): e is string => Boolean(e)))];
  return found.length === 1 ? found[0] : undefined;
}
