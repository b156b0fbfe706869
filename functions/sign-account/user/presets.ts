// The user presets: exactly the subjects each controller publishes to, and its own inbox as the
// only subscription, so no controller can read another's replies. A preset user's client dials
// with the inbox prefix `_INBOX.<preset>`.
import type { ConnectionType, UserPreset } from "../../../shared/api/index.ts";

export interface PresetClaims {
  publish?: string[];
  subscribe?: string[];
  connectionTypes?: ConnectionType[];
}

export const presetInbox = (preset: UserPreset): string => `_INBOX.${preset}`;
const ownInbox = (preset: UserPreset) => [`${presetInbox(preset)}.>`];

const CLUSTER_CONTROLLER = [
  "$SYS.REQ.SERVER.PING.STATSZ",
  "$SYS.REQ.SERVER.PING.JSZ",
  "$SYS.REQ.SERVER.PING.GATEWAYZ",
  "$SYS.REQ.SERVER.PING.LEAFZ",
  "$SYS.REQ.SERVER.*.VARZ",
  "$SYS.REQ.SERVER.*.RELOAD",
  "$JS.API.SERVER.EVACUATE",
  "$JS.API.META.LEADER.STEPDOWN",
  "$JS.API.SERVER.REMOVE",
];

const AUTH_CONTROLLER = [
  "$SYS.REQ.SERVER.PING.STATSZ",
  "$SYS.REQ.SERVER.PING.VARZ",
  "$SYS.REQ.CLAIMS.UPDATE",
  "$SYS.REQ.CLAIMS.DELETE",
  "$SYS.REQ.ACCOUNT.*.CLAIMS.LOOKUP",
  "$SYS.REQ.SERVER.PING.CONNZ",
  "$SYS.REQ.SERVER.*.KICK",
];

const JETSTREAM_CONTROLLER = [
  "$SYS.REQ.SERVER.PING.STATSZ",
  "$SYS.REQ.SERVER.PING.JSZ",
  "$SYS.REQ.SERVER.*.JSZ",
  "acc.*.$JS.API.STREAM.LEADER.STEPDOWN.*",
  "acc.*.$JS.API.CONSUMER.LEADER.STEPDOWN.*.*",
  "$JS.API.ACCOUNT.STREAM.MOVE.*.*",
  "$JS.API.ACCOUNT.STREAM.CANCEL_MOVE.*.*",
];

const READONLY = [
  "$JS.API.INFO",
  "$JS.API.STREAM.NAMES",
  "$JS.API.STREAM.LIST",
  "$JS.API.STREAM.INFO.*",
  "$JS.API.CONSUMER.NAMES.*",
  "$JS.API.CONSUMER.LIST.*",
  "$JS.API.CONSUMER.INFO.*.*",
];

/** The claims a preset gives, and nothing else. */
export function presetClaims(preset: UserPreset): PresetClaims {
  switch (preset) {
    case "cluster-controller":
      return { publish: CLUSTER_CONTROLLER, subscribe: ownInbox(preset) };
    case "auth-controller":
      return { publish: AUTH_CONTROLLER, subscribe: ownInbox(preset) };
    case "jetstream-controller":
      return { publish: JETSTREAM_CONTROLLER, subscribe: ownInbox(preset) };
    case "readonly":
      return { publish: READONLY, subscribe: ownInbox(preset) };
    case "leafnode":
      return { connectionTypes: ["LEAFNODE"] };
  }
}
