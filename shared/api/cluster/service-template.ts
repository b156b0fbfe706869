// The Service a NatsCluster exposes its gateway or leafnode listener with.
import type { Static } from "typebox";
import { Struct, NonEmptyText, Optional, OneOf, ListOf, StringMap, Text } from "../common/fields.ts";

const isLoadBalancer = (side: "self" | "oldSelf") => `has(${side}.type) && ${side}.type == 'LoadBalancer'`;

export const ServiceTemplate = (description: string) =>
  Struct(
    {
      type: Optional(OneOf(["ClusterIP", "NodePort", "LoadBalancer"], "Service type; ClusterIP when omitted.")),
      annotations: Optional(StringMap("Annotations set on the Service (for example for external-dns).")),
      loadBalancerClass: Optional(
        NonEmptyText("Load balancer implementation to use; only with type LoadBalancer.", { maxLength: 253 }),
      ),
      loadBalancerSourceRanges: Optional(
        ListOf(
          Text("A client address range in CIDR notation.", {
            maxLength: 43,
            rules: [{ rule: "isCIDR(self)", message: "a source range must be a CIDR" }],
          }),
          "Client ranges the load balancer admits; only with type LoadBalancer.",
          { maxItems: 256, listType: "atomic" },
        ),
      ),
    },
    description,
    {
      rules: [
        {
          rule: `!has(self.loadBalancerSourceRanges) || size(self.loadBalancerSourceRanges) == 0 || (${isLoadBalancer("self")})`,
          message: "loadBalancerSourceRanges is set only when type is LoadBalancer",
        },
        {
          rule: `!has(self.loadBalancerClass) || (${isLoadBalancer("self")})`,
          message: "loadBalancerClass is set only when type is LoadBalancer",
        },
        {
          rule:
            `!((${isLoadBalancer("self")}) && (${isLoadBalancer("oldSelf")})) || ` +
            "(has(self.loadBalancerClass) == has(oldSelf.loadBalancerClass) && " +
            "(!has(self.loadBalancerClass) || self.loadBalancerClass == oldSelf.loadBalancerClass))",
          message: "loadBalancerClass cannot change while type stays LoadBalancer",
        },
      ],
    },
  );
export type ServiceTemplate = Static<ReturnType<typeof ServiceTemplate>>;
