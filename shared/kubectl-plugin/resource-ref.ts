// `natscluster/demo`, `natsstreams/orders`, `nc/demo`: a kind and a name as kubectl takes them.
import { KINDS, type KindInfo } from "../api/index.ts";

export interface ResourceRef {
  kind: KindInfo;
  name: string;
}

/** The kind and name `kind/name` names, matching the kind's name, singular, plural or short names; undefined otherwise. */
export function parseResourceRef(text: string): ResourceRef | undefined {
  const [kindText, name, ...rest] = text.split("/");
  if (!kindText || !name || rest.length > 0) return undefined;
  const wanted = kindText.toLowerCase();
  const kind = Object.values(KINDS).find(
    (k: KindInfo) =>
      k.kind.toLowerCase() === wanted || k.singular === wanted || k.plural === wanted || k.shortNames.includes(wanted),
  );
  return kind ? { kind, name } : undefined;
}
