// The nats-server version field and its rules: semver, at least 2.15.0, one minor per change.
import { Text } from "../common/fields.ts";

export const MINIMUM_NATS_VERSION = "2.15.0";

const SEMVER =
  "^(0|[1-9][0-9]*)\\\\.(0|[1-9][0-9]*)\\\\.(0|[1-9][0-9]*)(-[0-9A-Za-z-]+(\\\\.[0-9A-Za-z-]+)*)?(\\\\+[0-9A-Za-z-]+(\\\\.[0-9A-Za-z-]+)*)?$";

const isSemver = (v: string) => `${v}.matches('${SEMVER}')`;
const major = (v: string) => `int(${v}.split('.')[0])`;
const minor = (v: string) => `int(${v}.split('.')[1])`;

/** Refuses anything but a semantic version of 2.15.0 or later. */
export const versionFloorRule =
  `${isSemver("self")} && (${major("self")} > 2 || (${major("self")} == 2 && ${minor("self")} >= 15)) && ` +
  // A pre-release of 2.15.0 sorts before 2.15.0 itself.
  "!self.startsWith('2.15.0-')";

/** On update: same major, minor within one of the old one; patches move freely. */
export const versionStepRule =
  `!${isSemver("self")} || !${isSemver("oldSelf")} || ` +
  `(${major("self")} == ${major("oldSelf")} && ${minor("self")} - ${minor("oldSelf")} <= 1 && ${minor("oldSelf")} - ${minor("self")} <= 1)`;

export const NatsVersion = () =>
  Text(
    "nats-server version the cluster runs; the image tag is always this version. Must be 2.15.0 or later, and " +
      "an update may move the minor version by at most one (patches move freely). status.version follows once " +
      "every server reports it.",
    {
      maxLength: 64,
      rules: [
        { rule: versionFloorRule, message: "version must be a semantic version, 2.15.0 or later" },
        { rule: versionStepRule, message: "version moves at most one minor at a time, up or down" },
      ],
    },
  );
