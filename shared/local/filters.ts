/**
 * Trigger filters of the CloudEvents Subscriptions API dialects Knative
 * supports on `spec.filters` (exact, prefix, suffix, all, any, not), and the
 * older `spec.filter.attributes` map. They see attributes only, never data.
 */
export type Filter =
  | { exact: Record<string, string> }
  | { prefix: Record<string, string> }
  | { suffix: Record<string, string> }
  | { all: Filter[] }
  | { any: Filter[] }
  | { not: Filter };

export type Attributes = Readonly<Record<string, string | undefined>>;

export function matchesFilter(filter: Filter, attributes: Attributes): boolean {
  if ("exact" in filter) return compare(filter.exact, attributes, (value, wanted) => value === wanted);
  if ("prefix" in filter) return compare(filter.prefix, attributes, (value, wanted) => value.startsWith(wanted));
  if ("suffix" in filter) return compare(filter.suffix, attributes, (value, wanted) => value.endsWith(wanted));
  if ("all" in filter) return filter.all.every((f) => matchesFilter(f, attributes));
  if ("any" in filter) return filter.any.some((f) => matchesFilter(f, attributes));
  return !matchesFilter(filter.not, attributes);
}

/** All entries of `filters` must match; an empty list matches everything. */
export function matchesFilters(filters: readonly Filter[], attributes: Attributes): boolean {
  return filters.every((f) => matchesFilter(f, attributes));
}

/** `spec.filter.attributes`: exact matches, where an empty value matches any value. */
export function matchesAttributeFilter(wanted: Readonly<Record<string, string>>, attributes: Attributes): boolean {
  return Object.entries(wanted).every(
    ([name, value]) => attributes[name] !== undefined && (value === "" || attributes[name] === value),
  );
}

function compare(
  wanted: Record<string, string>,
  attributes: Attributes,
  test: (value: string, wanted: string) => boolean,
): boolean {
  return Object.entries(wanted).every(([name, expected]) => {
    const value = attributes[name];
    return value !== undefined && test(value, expected);
  });
}
