// TLS settings of a NatsCluster's listeners and routes.
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, Flag } from "../common/fields.ts";
import { SecretReference, NAME_MAX_LENGTH } from "../common/references.ts";

const IssuerReference = Struct(
  {
    name: NonEmptyText("Name of the Issuer (in the cluster's namespace) or ClusterIssuer.", {
      maxLength: NAME_MAX_LENGTH,
    }),
    kind: Optional(NonEmptyText("Issuer kind: Issuer when omitted, or ClusterIssuer.")),
    group: Optional(NonEmptyText("Issuer API group: cert-manager.io when omitted.")),
  },
  "The cert-manager issuer that signs the certificate.",
);

const CertManagerSource = Struct(
  { issuerRef: IssuerReference },
  "Have cert-manager issue the certificate: the controller creates a Certificate in the cluster's namespace " +
    "and deletes it when no listener names it any more.",
);

const certificateSourceProperties = () => ({
  secretRef: Optional(SecretReference("A kubernetes.io/tls Secret holding the certificate, its key and ca.crt.")),
  certManager: Optional(CertManagerSource),
});

/** TLS of a listener (client, gateway, leafnodes): exactly one certificate source. */
export const ListenerTLS = (description: string) =>
  Struct(certificateSourceProperties(), description, {
    rules: [
      { rule: "has(self.secretRef) != has(self.certManager)", message: "set exactly one of secretRef and certManager" },
    ],
  });
export type ListenerTLS = Static<ReturnType<typeof ListenerTLS>>;

/** TLS between the servers of a cluster: on by default, self-signed unless a certificate is named. */
export const RoutesTLS = Struct(
  {
    enabled: Optional(
      Flag("Encrypt and authenticate route connections. Without a named certificate a self-signed CA is kept.", {
        default: true,
      }),
    ),
    ...certificateSourceProperties(),
  },
  "TLS on the route connections between the cluster's servers.",
  {
    rules: [
      {
        rule: "!(has(self.secretRef) && has(self.certManager))",
        message: "secretRef and certManager are mutually exclusive",
      },
      {
        rule: "(!has(self.enabled) || self.enabled) || !(has(self.secretRef) || has(self.certManager))",
        message: "a certificate is named only while route TLS is enabled",
      },
    ],
  },
);
export type RoutesTLS = Static<typeof RoutesTLS>;
