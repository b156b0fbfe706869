// What runs for a container image on this node. There is no container
// runtime: an image maps to a local program.
//  - nats / nats-server images run as the built nats-server (nats.ts);
//  - an image that names a Knative command (ko://knative.dev/eventing/cmd/<path>
//    or ko://knative.dev/serving/cmd/<name>, or a registry path ending in it)
//    runs as that command's binary, built by test/infra/build-knative.sh or
//    build-serving.sh, in the pod's own network namespace (commands that are
//    not built, like jobsink, are simulated);
//  - a traefik image runs as the Traefik built by build-serving.sh (the
//    networking layer of Knative Serving), in its own network namespace;
//  - the operator's image runs `node bin/nats-operator.ts` from this checkout;
//  - anything else is simulated (reported Running without running).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { V1Container } from "@kubernetes/client-node";
import { isNatsContainer } from "./nats.ts";

export type Workload =
  { kind: "nats" } | { kind: "binary"; path: string } | { kind: "node"; script: string } | { kind: "simulated" };

export interface WorkloadImages {
  /** Directory of Knative Eventing binaries (bin/<cmd path with / as ->). */
  knativeBin?: string;
  /** Directory of Knative Serving binaries (bin/<cmd name>) and Traefik (bin/traefik). */
  servingBin?: string;
  /** The checkout whose bin/nats-operator.ts runs for the operator's image. */
  operatorCheckout?: string;
}

const KNATIVE_CMD = /(?:^ko:\/\/|\/)knative\.dev\/(eventing|serving)\/cmd\/([a-z_/]+?)(?:[:@].*)?$/;
const TRAEFIK_IMAGE = /(?:^|\/)traefik(?:[:@].*)?$/;
const OPERATOR_IMAGE = /(?:^|\/)nats-operator(?:[:@].*)?$/;

export function workloadOf(container: V1Container, images: WorkloadImages): Workload {
  if (isNatsContainer(container)) return { kind: "nats" };
  const image = container.image ?? "";
  const knative = KNATIVE_CMD.exec(image);
  if (knative !== null) {
    const bin = knative[1] === "serving" ? images.servingBin : images.knativeBin;
    if (bin === undefined) return { kind: "simulated" };
    const path = join(bin, (knative[2] ?? "").replaceAll("/", "-"));
    return existsSync(path) ? { kind: "binary", path } : { kind: "simulated" };
  }
  if (TRAEFIK_IMAGE.test(image) && images.servingBin !== undefined)
    return { kind: "binary", path: join(images.servingBin, "traefik") };
  if (OPERATOR_IMAGE.test(image) && images.operatorCheckout !== undefined)
    return { kind: "node", script: join(images.operatorCheckout, "bin", "nats-operator.ts") };
  return { kind: "simulated" };
}
