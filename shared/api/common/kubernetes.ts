// Kubernetes types embedded in our specs, with structural schemas of the
// fields we rely on (label selectors, resources, volume claims, network peers).
import type { Static } from "typebox";
import { Struct, Text, NonEmptyText, OneOf, ListOf, MapOf, StringMap, Optional, FreeForm } from "./fields.ts";
import { Quantity } from "./formats.ts";

export const LabelSelectorRequirement = Struct(
  {
    key: NonEmptyText("Label key the requirement applies to.", { maxLength: 317 }),
    operator: OneOf(["In", "NotIn", "Exists", "DoesNotExist"], "How the key relates to the values."),
    values: Optional(
      ListOf(Text("A label value."), "Values for In and NotIn; empty for Exists and DoesNotExist.", {
        listType: "atomic",
      }),
    ),
  },
  "A label requirement: a key, an operator and values.",
);

/** A Kubernetes label selector; an empty selector matches everything. */
export const LabelSelector = (description: string) =>
  Struct(
    {
      matchLabels: Optional(StringMap("Labels an object must carry, with these exact values.")),
      matchExpressions: Optional(
        ListOf(LabelSelectorRequirement, "Requirements an object's labels must all meet.", { listType: "atomic" }),
      ),
    },
    description,
  );
export type LabelSelector = Static<ReturnType<typeof LabelSelector>>;

const QuantityMap = (description: string) => MapOf(Quantity("An amount of the resource."), description);

/** Compute resources of a container. */
export const ResourceRequirements = (description: string) =>
  Struct(
    {
      limits: Optional(QuantityMap("Most of each resource the container may use (cpu, memory, ...).")),
      requests: Optional(QuantityMap("Resources reserved for the container when it is scheduled.")),
      claims: Optional(
        ListOf(
          Struct(
            {
              name: NonEmptyText("Name of a resource claim of the pod."),
              request: Optional(Text("Request inside that claim; empty means the whole claim.")),
            },
            "A dynamic resource claim the container uses.",
          ),
          "Dynamic resource claims the container uses.",
          { listType: "map", listMapKeys: ["name"] },
        ),
      ),
    },
    description,
  );
export type ResourceRequirements = Static<ReturnType<typeof ResourceRequirements>>;

/** Labels and annotations copied onto generated objects. */
export const EmbeddedMetadata = (description: string) =>
  Struct(
    {
      labels: Optional(StringMap("Labels added to the generated object.")),
      annotations: Optional(StringMap("Annotations added to the generated object.")),
    },
    description,
  );

const TypedObjectReference = (description: string) =>
  Struct(
    {
      apiGroup: Optional(Text("API group of the object; empty for the core group.")),
      kind: NonEmptyText("Kind of the object."),
      name: NonEmptyText("Name of the object."),
      namespace: Optional(Text("Namespace of the object, where the kind allows another one.")),
    },
    description,
  );

/** The fields of a PersistentVolumeClaim spec that a data volume uses. */
export const PersistentVolumeClaimSpec = (description: string) =>
  Struct(
    {
      accessModes: Optional(
        ListOf(
          Text("An access mode, such as ReadWriteOnce."),
          "Ways the volume may be mounted; ReadWriteOnce when empty.",
          {
            listType: "atomic",
          },
        ),
      ),
      storageClassName: Optional(Text("StorageClass that provisions the volume; the cluster default when omitted.")),
      resources: Optional(
        Struct(
          {
            requests: Optional(QuantityMap("Least storage the volume must have (key `storage`).")),
            limits: Optional(QuantityMap("Most storage the volume may have.")),
          },
          "Storage requested for the volume.",
        ),
      ),
      selector: Optional(LabelSelector("Labels an existing volume must carry to be bound.")),
      volumeMode: Optional(OneOf(["Filesystem", "Block"], "Whether the volume is a filesystem or a raw block device.")),
      volumeName: Optional(Text("Existing PersistentVolume to bind.")),
      volumeAttributesClassName: Optional(Text("VolumeAttributesClass applied to the volume.")),
      dataSource: Optional(TypedObjectReference("Object the volume is populated from (a snapshot or another claim).")),
      dataSourceRef: Optional(TypedObjectReference("Object the volume is populated from, by a volume populator.")),
    },
    description,
  );

/** A peer admitted by a NetworkPolicy rule. */
export const NetworkPolicyPeer = Struct(
  {
    podSelector: Optional(LabelSelector("Pods admitted, in the selected namespaces (or the policy's own).")),
    namespaceSelector: Optional(LabelSelector("Namespaces whose pods are admitted; empty selects every namespace.")),
    ipBlock: Optional(
      Struct(
        {
          cidr: NonEmptyText("Admitted address range, in CIDR notation."),
          except: Optional(
            ListOf(Text("A CIDR."), "Ranges inside cidr that are not admitted.", { listType: "atomic" }),
          ),
        },
        "An admitted address range.",
      ),
    ),
  },
  "A source admitted to a port: pods, namespaces or an address range.",
);

/** A partial pod spec merged over the rendered pod; kept as written. */
export const PartialPodSpec = (description: string) => FreeForm(description);
