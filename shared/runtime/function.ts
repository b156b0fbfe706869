import type { CloudEvent } from "cloudevents";
import type { Logger } from "../telemetry/logger.ts";
import type { Kube } from "../kube/client.ts";
import type { EventRecorder } from "../kube/events.ts";
import type { ObjectSnapshot, OperatorEvent } from "./event.ts";
import type { InputFacet } from "./input-facet.ts";
import type { Outcome } from "./outcome.ts";

/** What a function gets besides the event: all of it lazily, so idle paths stay cheap. */
export interface FunctionContext {
  /** A logger bound to this event's id, type and object. */
  readonly log: Logger;
  /** The decoded event; `handle` never parses the CloudEvent itself. */
  readonly event: OperatorEvent;
  /** The API server client, created on first use and reused for the life of the process. */
  kube(): Promise<Kube>;
  /** An Event recorder reporting as this function. */
  recorder(): Promise<EventRecorder>;
  now(): Date;
}

/**
 * One operator function. `handle` has the Knative Functions shape
 * `handle(context, cloudEvent)`; it reads current state, reconciles and
 * returns an outcome, which the server maps to the HTTP status the Broker
 * retries by.
 */
export interface OperatorFunction {
  readonly name: string;
  /** Kinds this function handles, as `Kind.group` (`NatsCluster.cluster.nats-operator.io`; core kinds `Secret.`). */
  readonly kinds: readonly string[];
  /** Whether PingSource ticks are for this function (it creates PingSources naming it). */
  readonly handlesPings: boolean;
  /**
   * Kinds whose status this function writes, as `Kind.group`: a resync tick re-delivers
   * those of them that are not at rest (shared/runtime/resync.ts).
   */
  readonly owns?: readonly string[];
  /**
   * Whether a resync tick re-delivers every owned object, at rest or not: the function
   * compares each with state outside the API server (JetStream), which drifts without an event.
   */
  readonly checksDrift?: boolean;
  /**
   * Whether its reconciles record in each owned object's status what they read of other objects
   * (`status.inputs.<function>`, shared/runtime/inputs.ts): a resync tick then also re-delivers
   * the objects whose inputs changed since, or that carry no readable record.
   */
  readonly recordsInputs?: boolean;
  /** The inputs its reconciles read through a facet (shared/runtime/inputs.ts): the sweep reads them alike. */
  readonly inputFacets?: readonly InputFacet[];
  /** Annotations that make an otherwise unchanged object worth a look. */
  readonly actionAnnotations?: readonly string[];
  /**
   * A look at a Resource-mode payload whose generation is already observed:
   * true when something in it (a condition that no longer holds, a time it
   * names that has come) still needs the function, so the event is not
   * dropped as a status echo and a resync tick re-delivers the object.
   */
  caresAbout?(snapshot: ObjectSnapshot, now: Date): boolean;
  /**
   * Whether the object shows a failure of the function's own last reconcile of it, which the
   * function records on it (render-cluster's render-failure annotation): a resync tick re-delivers
   * it, as one Stalled, until a reconcile gets through. Its echoes are still dropped, so a failure
   * recorded afresh does not feed the function another event at once.
   */
  showsFailure?(snapshot: ObjectSnapshot): boolean;
  handle(context: FunctionContext, cloudEvent: CloudEvent<unknown>): Promise<Outcome>;
  /** Releases what the function keeps across events (NATS connections). */
  shutdown?(): Promise<void>;
}

/** `Kind.group` of an apiVersion and kind, as `OperatorFunction.kinds` lists them. */
export function qualifiedKind(apiVersion: string, kind: string): string {
  const slash = apiVersion.lastIndexOf("/");
  return `${kind}.${slash < 0 ? "" : apiVersion.slice(0, slash)}`;
}
