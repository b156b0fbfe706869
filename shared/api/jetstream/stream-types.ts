// Types shared by stream, key-value and object-store configs.
import {
  Struct,
  NonEmptyText,
  Optional,
  OneOf,
  ListOf,
  Text,
  Int64,
  Flag,
  type StructOptions,
} from "../common/fields.ts";
import { Time } from "../common/formats.ts";

export const StorageType = (rules: { rule: string; message: string }[]) =>
  OneOf(["File", "Memory"], "Where messages are stored. Cannot change.", { rules });

const Tags = () =>
  ListOf(Text("A server tag."), "Server tags every replica's server must carry.", { listType: "atomic" });

/** Placement of a stream: a changed cluster moves the stream there. */
export const StreamPlacement = Struct(
  {
    cluster: Optional(Text("NATS cluster to place the stream in; changing it moves the stream.")),
    tags: Optional(Tags()),
    preferred: Optional(Text("Server preferred as leader.")),
  },
  "Where the stream's replicas are placed.",
);

/** Placement of a bucket; a preferred leader is not supported there. */
export const BucketPlacement = Struct(
  {
    cluster: Optional(Text("NATS cluster to place the bucket in; changing it moves the bucket.")),
    tags: Optional(Tags()),
    preferred: Optional(Text("Not supported for buckets: setting it makes the resource Terminal (Rejected).")),
  },
  "Where the bucket's replicas are placed.",
);

export const SubjectTransform = (description: string) =>
  Struct(
    {
      source: Optional(Text("Subjects the transform applies to (server field src).")),
      destination: NonEmptyText("Subject they are rewritten to (server field dest)."),
    },
    description,
  );

export const Republish = Struct(
  {
    source: Optional(Text("Subjects to republish (server field src).")),
    destination: NonEmptyText("Subject messages are republished to (server field dest)."),
    headersOnly: Optional(Flag("Republish headers only, without the payload.")),
  },
  "Republishes stored messages to another subject.",
);

export const StreamSource = (description: string, options: StructOptions = {}) =>
  Struct(
    {
      name: NonEmptyText("Server-side name of the origin stream."),
      optStartSeq: Optional(Int64("Sequence to start from.", { minimum: 0 })),
      optStartTime: Optional(Time("Time to start from.")),
      filterSubject: Optional(Text("Only messages on these subjects.")),
      subjectTransforms: Optional(
        ListOf(SubjectTransform("A subject transform."), "Subject transforms applied to sourced messages.", {
          listType: "atomic",
        }),
      ),
      external: Optional(
        Struct(
          {
            apiPrefix: NonEmptyText("JetStream API prefix of the other domain or account."),
            deliverPrefix: Optional(Text("Delivery prefix for the messages.")),
          },
          "The origin lives in another JetStream domain or account.",
        ),
      ),
      consumer: Optional(
        Struct(
          {
            name: Optional(Text("Consumer name.")),
            deliverSubject: Optional(Text("Deliver subject.")),
          },
          "Consumer on the origin that feeds this stream.",
        ),
      ),
    },
    description,
    options,
  );
