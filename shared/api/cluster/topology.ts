// How a NatsCluster joins others: gateways (supercluster), a leafnode listener, leaf remotes.
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, Flag, ListOf, OneOf, Text } from "../common/fields.ts";
import { ObjectReference } from "../common/references.ts";
import { ListenerTLS } from "./tls.ts";
import { ServiceTemplate } from "./service-template.ts";

const GatewayRemote = Struct(
  {
    name: NonEmptyText("Name of the member cluster (its gateway name).", { maxLength: 253 }),
    url: NonEmptyText("Gateway URL of the member, such as tls://host:7222."),
  },
  "A member of the supercluster.",
);

export const Gateway = Struct(
  {
    discovery: OneOf(
      ["Explicit", "Gossip"],
      "Explicit: the remotes are the whole supercluster and unknown gateways are refused. " +
        "Gossip: the remotes are seeds and other members are learnt from them.",
    ),
    remotes: ListOf(
      GatewayRemote,
      "Every member of the supercluster; this cluster's own entry may be listed and is skipped.",
      { minItems: 1, listType: "map", listMapKeys: ["name"] },
    ),
    tls: Optional(ListenerTLS("Gateway TLS; peers are verified both ways, so the Secret must hold ca.crt.")),
    service: Optional(ServiceTemplate("The gateway Service <name>-gateway.")),
    advertise: Optional(Text("host:port other members dial for this cluster (status.endpoints.gateway).")),
  },
  "Joins a supercluster under the NatsCluster's own name.",
);
export type Gateway = Static<typeof Gateway>;

export const Leafnodes = Struct(
  {
    tls: Optional(ListenerTLS("TLS of the leafnode listener.")),
    service: Optional(ServiceTemplate("The Service exposing the leafnode listener.")),
    advertise: Optional(Text("host:port advertised to leaf nodes.")),
  },
  "A listener (port 7422) that leaf nodes connect to; requires auth.",
);
export type Leafnodes = Static<typeof Leafnodes>;

export const LeafRemote = Struct(
  {
    connectionRef: ObjectReference("NatsConnection", "The hub to dial: its URL, CA and credentials."),
    localAccountTrustRef: Optional(
      ObjectReference(
        "NatsAccountTrust",
        "The local account the remote binds; the global account when neither is set.",
      ),
    ),
    localSystemAccount: Optional(Flag("Bind the remote to this cluster's system account.")),
  },
  "A hub this cluster connects to as a leaf node.",
  {
    rules: [
      {
        rule: "!(has(self.localAccountTrustRef) && has(self.localSystemAccount) && self.localSystemAccount)",
        message: "localAccountTrustRef and localSystemAccount are mutually exclusive",
      },
    ],
  },
);
export type LeafRemote = Static<typeof LeafRemote>;
