// Kubernetes label-selector matching, as the API server does it: every matchLabels pair and every
// matchExpressions requirement must hold; an empty selector matches everything.
import type { LabelSelector } from "../../../shared/api/index.ts";

export function matchesSelector(selector: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  const has = (key: string) => Object.hasOwn(labels, key);
  if (Object.entries(selector.matchLabels ?? {}).some(([k, v]) => labels[k] !== v)) return false;
  return (selector.matchExpressions ?? []).every((e) => {
    const values = e.values ?? [];
    switch (e.operator) {
      case "In":
        return has(e.key) && values.includes(labels[e.key] ?? "");
      case "NotIn":
        return !has(e.key) || !values.includes(labels[e.key] ?? "");
      case "Exists":
        return has(e.key);
      case "DoesNotExist":
        return !has(e.key);
    }
  });
}
