// The `nats-operator preview` command: reads the proposal, asks previewChange, prints the report.
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { createKube, createTransport } from "../../../shared/kube/index.ts";
import { asCluster, type Cluster } from "../../cluster/index.ts";
import { startMonitorRelay } from "./monitor-relay.ts";
import { formatPreview, previewChange } from "./preview.ts";

export interface PreviewArgs {
  /** A NatsCluster manifest: the proposed object. */
  file?: string;
  /** Names the live object (with `name`), or the namespace of a manifest without one. */
  namespace?: string;
  name?: string;
  json: boolean;
  /**
   * Reach the servers' monitoring ports through the API server's pods proxy, as from outside the
   * cluster, where their in-cluster names do not resolve (the kubectl plugin's `preview`).
   */
  viaApiServer?: boolean;
}

async function readProposal(file: string, namespace: string | undefined): Promise<Cluster> {
  const manifest: unknown = parse(await readFile(file, "utf8"));
  const object = manifest as Cluster;
  if (object?.kind !== "NatsCluster") throw new Error(`${file} holds no NatsCluster`);
  const cluster = asCluster({
    ...object,
    metadata: { ...object.metadata, namespace: object.metadata.namespace ?? namespace ?? "default" },
  });
  if (!cluster) throw new Error(`${file}: the NatsCluster has no metadata.name`);
  return cluster;
}

export async function previewCommand(args: PreviewArgs): Promise<number> {
  try {
    const proposal = args.file ? await readProposal(args.file, args.namespace) : undefined;
    const namespace = proposal?.metadata.namespace ?? args.namespace ?? "default";
    const name = proposal?.metadata.name ?? args.name;
    if (!name) {
      process.stderr.write("preview: give -f <natscluster.yaml>, or -n <namespace> <name>\n");
      return 2;
    }
    const transport = await createTransport();
    const kube = createKube(transport);
    const relay = args.viaApiServer ? await startMonitorRelay(transport) : undefined;
    const report = await previewChange(kube, { namespace, name }, proposal, new Date(), relay?.address).finally(() =>
      relay?.close(),
    );
    process.stdout.write(args.json ? `${JSON.stringify(report, null, 2)}\n` : formatPreview(report));
    return 0;
  } catch (error) {
    process.stderr.write(`preview: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
