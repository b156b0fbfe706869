// `kubectl nats-operator creds natsuser/<name>`: the user's creds Secret as a `nats` CLI context,
// written to the CLI's context directory (creds mode 0600) or printed. The creds are written to a
// file or stdout only: never into a log or an error message.
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname } from "node:path";
import { DEFAULT_CREDENTIALS_KEY, KINDS, type ResourceOf } from "../api/index.ts";
import type { Kube, KubeObject } from "../kube/index.ts";
import {
  contextFiles,
  defaultContextName,
  defaultServerUrl,
  natsConfigDir,
  validContextName,
  type ContextFiles,
} from "./nats-context.ts";

export interface CredsArgs {
  namespace: string;
  user: string;
  contextName?: string;
  server?: string;
  /** Where the creds file goes, instead of beside the contexts. */
  credsPath?: string;
  /** Print the context and the creds instead of writing files. */
  print: boolean;
}

type User = KubeObject & ResourceOf<"NatsUser">;
type Secret = KubeObject & { data?: Record<string, string> };
type ClusterWithEndpoints = KubeObject & { status?: { endpoints?: { client?: string } } };

/** The client endpoints of the NatsClusters in these namespaces. */
async function clientEndpoints(kube: Kube, namespaces: readonly string[]): Promise<(string | undefined)[]> {
  const lists = await Promise.all(
    [...new Set(namespaces)].map((namespace) =>
      kube.list<ClusterWithEndpoints>({
        apiVersion: KINDS.NatsCluster.apiVersion,
        kind: KINDS.NatsCluster.kind,
        namespace,
      }),
    ),
  );
  return lists.flat().map((c) => c.status?.endpoints?.client);
}

/** The user's creds file from its Secret; an Error saying why there is none. */
async function readCreds(kube: Kube, user: User): Promise<string> {
  const where = `${user.metadata.namespace}/${user.metadata.name}`;
  if (user.spec.publicKey)
    throw new Error(`NatsUser ${where} holds its own key (spec.publicKey): it has no creds Secret, only status.jwt`);
  const secretName = user.spec.credentials?.secretKeyRef.name ?? `${user.metadata.name}-creds`;
  const key = user.spec.credentials?.secretKeyRef.key ?? DEFAULT_CREDENTIALS_KEY;
  const secret = await kube.get<Secret>({
    apiVersion: "v1",
    kind: "Secret",
    namespace: user.metadata.namespace ?? "",
    name: secretName,
  });
  const encoded = secret?.data?.[key];
  if (!encoded)
    throw new Error(
      `NatsUser ${where}: Secret ${secretName} key ${key} is not written yet (see the user's Ready condition)`,
    );
  return Buffer.from(encoded, "base64").toString("utf8");
}

export async function credsCommand(kube: Kube, args: CredsArgs, out: (text: string) => void): Promise<void> {
  const user = await kube.get<User>({
    apiVersion: KINDS.NatsUser.apiVersion,
    kind: "NatsUser",
    namespace: args.namespace,
    name: args.user,
  });
  if (!user) throw new Error(`NatsUser ${args.namespace}/${args.user} not found`);
  const name = args.contextName ?? defaultContextName(args.namespace, args.user);
  if (!validContextName(name)) throw new Error(`"${name}" is not a context name the nats CLI accepts`);
  const creds = await readCreds(kube, user);
  const url =
    args.server ??
    defaultServerUrl(await clientEndpoints(kube, [args.namespace, user.spec.accountRef.namespace ?? args.namespace]));
  if (!url)
    throw new Error(
      "no single NatsCluster client endpoint found in the user's or its account's namespace: give --server URL",
    );
  const files = contextFiles({
    configDir: natsConfigDir(process.env, homedir()),
    name,
    url,
    user: { namespace: args.namespace, name: args.user },
    ...(args.credsPath ? { credsPath: args.credsPath } : {}),
  });
  if (args.print) {
    out(`# ${files.contextPath}\n${JSON.stringify(files.context, null, 2)}\n# ${files.credsPath}\n${creds}`);
    return;
  }
  await writeContext(files, creds);
  out(
    `wrote the nats context "${name}" to ${files.contextPath} and its creds to ${files.credsPath} (mode 0600)\n` +
      `use it with: nats --context ${name} ...   or make it the default: nats context select ${name}\n`,
  );
}

async function writeContext(files: ContextFiles, creds: string): Promise<void> {
  await mkdir(dirname(files.credsPath), { recursive: true, mode: 0o700 });
  await writeFile(files.credsPath, creds, { mode: 0o600 });
  // An existing file keeps its mode through writeFile: set it.
  await chmod(files.credsPath, 0o600);
  await mkdir(dirname(files.contextPath), { recursive: true, mode: 0o700 });
  await writeFile(files.contextPath, `${JSON.stringify(files.context, null, 2)}\n`, { mode: 0o600 });
}
