// The prometheus-nats-exporter sidecar of every server pod.
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, Flag, ListOf } from "../common/fields.ts";
import { ResourceRequirements, NetworkPolicyPeer } from "../common/kubernetes.ts";
import { ImageDigest } from "./image.ts";

export const Exporter = Struct(
  {
    enabled: Optional(Flag("Run the exporter sidecar; false removes it.", { default: true })),
    image: Optional(
      Struct(
        {
          repository: Optional(NonEmptyText("Image repository; natsio/prometheus-nats-exporter when omitted.")),
          tag: Optional(NonEmptyText("Image tag; the controller's pinned release (with its digest) when omitted.")),
          digest: Optional(ImageDigest("Image digest (sha256:...).")),
        },
        "Exporter image.",
      ),
    ),
    resources: Optional(
      ResourceRequirements(
        "Exporter container resources; replaces the defaults (requests 10m CPU and 32Mi, limits 100m CPU and 128Mi) as a whole.",
      ),
    ),
    from: Optional(
      ListOf(NetworkPolicyPeer, "Extra peers admitted to the metrics port 7777 while monitor.networkPolicy is on.", {
        listType: "atomic",
      }),
    ),
  },
  "The metrics exporter sidecar; on unless disabled.",
);
export type Exporter = Static<typeof Exporter>;
