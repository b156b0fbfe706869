// Container image selection: repository and digest, never a tag.
import { Struct, NonEmptyText, Optional } from "../common/fields.ts";

export const DIGEST_PATTERN = "^sha256:[a-f0-9]{64}$";

export const ImageDigest = (description: string) => NonEmptyText(description, { pattern: DIGEST_PATTERN });

export const NatsImage = Struct(
  {
    repository: Optional(NonEmptyText("Image repository; nats when omitted. The tag is always spec.version.")),
    digest: Optional(ImageDigest("Image digest (sha256:...), pinned after the tag.")),
  },
  "Where the nats-server image comes from.",
);
