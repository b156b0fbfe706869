// Whether an object read back already holds everything a render would write, so the write can
// be skipped. Fields the API server adds (defaults, status, metadata) do not count.

export function containsRendered(existing: unknown, rendered: unknown): boolean {
  if (rendered === undefined) return true;
  if (Array.isArray(rendered)) {
    return (
      Array.isArray(existing) &&
      existing.length === rendered.length &&
      rendered.every((item, i) => containsRendered(existing[i], item))
    );
  }
  if (typeof rendered === "object" && rendered !== null) {
    if (typeof existing !== "object" || existing === null || Array.isArray(existing)) return false;
    const have = existing as Record<string, unknown>;
    return Object.entries(rendered as Record<string, unknown>).every(([key, value]) =>
      containsRendered(have[key], value),
    );
  }
  return existing === rendered;
}
