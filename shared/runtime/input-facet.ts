// An input read through a facet (shared/runtime/inputs.ts): the part of an object a reader
// depends on, recorded by that part's text instead of the object's resourceVersion.
import type { KubeObject } from "../kube/object.ts";

/**
 * The part of an input object a reader's decision depends on, when that is much less than the
 * object (a NatsUser reads of its NatsAccount the keys, revocations and distribution, not the
 * limits): its version is `version(object)`, not the resourceVersion, so a change of the rest is
 * not a change of the reader's inputs and the sweep does not deliver the reader for it.
 */
export interface InputFacet {
  /** The reader's kind and the input's, qualified (`NatsUser.auth.nats-operator.io`). */
  readonly reader: string;
  readonly input: string;
  /** Lower-case letters and dashes: recorded after the ref, `#<name>`. */
  readonly name: string;
  version(object: KubeObject): string;
}
