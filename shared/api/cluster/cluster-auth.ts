// Puts a NatsCluster under a NATS operator.
import type { Static } from "typebox";
import { Struct, Optional, OneOf, ListOf } from "../common/fields.ts";
import { ObjectReference, Credentials } from "../common/references.ts";

export const ClusterAuth = Struct(
  {
    trustRef: ObjectReference(
      "NatsOperatorTrust",
      "Trust roots (operator and system account JWTs) the servers are configured with.",
    ),
    systemCredentials: Optional(
      Credentials(
        "System user the controller connects as: it reloads the config changes that allow it and evacuates JetStream servers before they leave. Without it every config change restarts and JetStream servers are not removed.",
      ),
    ),
    resolver: Optional(
      OneOf(["Full", "Cache"], "Account resolver. Omitted: Full, except Cache for a leaf that preloads no account."),
    ),
    accountTrustRefs: Optional(
      ListOf(
        ObjectReference("NatsAccountTrust", "An account every server preloads; the trust must carry a JWT."),
        "Account JWTs every server preloads beside the system account's.",
        { listType: "atomic" },
      ),
    ),
  },
  "Runs the cluster under a NATS operator; without it there is no auth and clients land in the global account.",
);
export type ClusterAuth = Static<typeof ClusterAuth>;
