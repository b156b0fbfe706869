// Adding or removing `auth` changes what every server is: a server in operator mode and one
// without cannot share accounts or a meta group, so one-at-a-time restarts would leave a mixed
// cluster. Such a change is held until the user asks for every server at once (restart-all).

export type AuthChange = "added" | "removed";

/** Whether a rendered config trusts an operator; undefined when it does not parse. */
function inOperatorMode(config: string): boolean | undefined {
  try {
    const parsed: unknown = JSON.parse(config);
    return typeof parsed === "object" && parsed !== null && "operator" in parsed;
  } catch {
    return undefined;
  }
}

/** How the planned config changes auth against the running one, if it does. */
export function authChange(running: string, planned: string): AuthChange | undefined {
  const before = inOperatorMode(running);
  const after = inOperatorMode(planned);
  if (before === undefined || after === undefined || before === after) return undefined;
  return after ? "added" : "removed";
}
