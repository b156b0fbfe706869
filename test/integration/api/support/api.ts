// Thin helpers over @kubernetes/client-node for the API tests: a kubeconfig
// from KUBECONFIG, a fresh namespace per test file, and create/replace calls
// that return the API server's verdict as a value.
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { KINDS, isKindName, type KindInfo } from "../../../../shared/api/kinds.ts";

/** A custom object as we send and read it. */
export type CustomObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; [key: string]: unknown };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

export type Verdict =
  | { readonly ok: true; readonly object: CustomObject }
  | { readonly ok: false; readonly code: number; readonly message: string };

export interface ApiSession {
  readonly kc: KubeConfig;
  readonly objects: CustomObjectsApi;
  readonly namespace: string;
}

export const loadKubeConfig = (): KubeConfig => {
  if (!process.env["KUBECONFIG"]) throw new Error("KUBECONFIG is not set: run through the integration harness");
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
};

/** Creates a fresh namespace; the harness installed the CRDs from crds/ (which the drift check keeps equal to the source). */
export const openSession = async (prefix: string): Promise<ApiSession> => {
  const kc = loadKubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const ns = await core.createNamespace({ body: { metadata: { generateName: `${prefix}-` } } });
  const namespace = ns.metadata?.name;
  if (!namespace) throw new Error("namespace created without a name");
  return { kc, objects: kc.makeApiClient(CustomObjectsApi), namespace };
};

export const closeSession = async (session: ApiSession | undefined): Promise<void> => {
  if (!session) return;
  await session.kc.makeApiClient(CoreV1Api).deleteNamespace({ name: session.namespace });
};

const infoOf = (object: CustomObject): KindInfo => {
  if (!isKindName(object.kind)) throw new Error(`not one of our kinds: ${object.kind}`);
  return KINDS[object.kind];
};

const target = (session: ApiSession, object: CustomObject) => {
  const info = infoOf(object);
  return { group: info.group, version: info.version, plural: info.plural, namespace: session.namespace };
};

const verdictOf = async (call: () => Promise<unknown>): Promise<Verdict> => {
  try {
    return { ok: true, object: (await call()) as CustomObject };
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body: unknown = typeof err.body === "string" ? safeParse(err.body) : err.body;
    const message = (body as { message?: unknown } | undefined)?.message;
    return { ok: false, code: err.code, message: typeof message === "string" ? message : String(err.body) };
  }
};

const safeParse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { message: text };
  }
};

export interface WriteOptions {
  /** Validate and default without storing. */
  readonly dryRun?: boolean;
}

const writeParams = (options: WriteOptions) => ({
  fieldValidation: "Strict",
  ...(options.dryRun ? { dryRun: "All" } : {}),
});

/** An object of one of our kinds in the session's namespace. */
export const objectOf = (
  session: ApiSession,
  kind: keyof typeof KINDS,
  name: string,
  spec: Record<string, unknown>,
): CustomObject => ({
  apiVersion: KINDS[kind].apiVersion,
  kind,
  metadata: { name, namespace: session.namespace },
  spec,
});

export const create = (session: ApiSession, object: CustomObject, options: WriteOptions = {}): Promise<Verdict> =>
  verdictOf(() =>
    session.objects.createNamespacedCustomObject({
      ...target(session, object),
      body: { ...object, metadata: { ...object.metadata, namespace: session.namespace } },
      ...writeParams(options),
    }),
  );

export const replace = (session: ApiSession, object: CustomObject, options: WriteOptions = {}): Promise<Verdict> =>
  verdictOf(() =>
    session.objects.replaceNamespacedCustomObject({
      ...target(session, object),
      name: object.metadata.name,
      body: object,
      ...writeParams(options),
    }),
  );

export const replaceStatus = (
  session: ApiSession,
  object: CustomObject,
  options: WriteOptions = {},
): Promise<Verdict> =>
  verdictOf(() =>
    session.objects.replaceNamespacedCustomObjectStatus({
      ...target(session, object),
      name: object.metadata.name,
      body: object,
      ...writeParams(options),
    }),
  );

export const read = (session: ApiSession, object: CustomObject): Promise<Verdict> =>
  verdictOf(() =>
    session.objects.getNamespacedCustomObject({ ...target(session, object), name: object.metadata.name }),
  );

/** Unwraps a verdict the test expects to be a success, with the server's message when it is not. */
export const accepted = (verdict: Verdict): CustomObject => {
  if (!verdict.ok) throw new Error(`refused (HTTP ${verdict.code}): ${verdict.message}`);
  return verdict.object;
};

let counter = 0;
/** A name unique within the test file. */
export const uniqueName = (base: string): string => `${base}-${++counter}`;
