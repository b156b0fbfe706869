import type { CloudEvent } from "cloudevents";
import { matchesAttributeFilter, matchesFilters, type Attributes } from "./filters.ts";
import type { TriggerRoute } from "./manifests.ts";

/** The attributes a Trigger filter sees: context attributes and extensions, as strings. */
export function attributesOf(ce: CloudEvent<unknown>): Attributes {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(ce.toJSON())) {
    if (name === "data" || name === "data_base64") continue;
    if (typeof value === "string") attributes[name] = value;
    else if (typeof value === "number" || typeof value === "boolean") attributes[name] = String(value);
  }
  return attributes;
}

/** The services (functions) whose Trigger passes the event, as the Broker would deliver it. */
export function routeEvent(routes: readonly TriggerRoute[], ce: CloudEvent<unknown>): string[] {
  const attributes = attributesOf(ce);
  return routes
    .filter((route) =>
      route.filters.length > 0
        ? matchesFilters(route.filters, attributes)
        : matchesAttributeFilter(route.attributes ?? {}, attributes),
    )
    .map((route) => route.service);
}
