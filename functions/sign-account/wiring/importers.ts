// Which accounts import from an exporter (a NatsAccount, or the system account for its monitoring
// exports): they are reconciled after it, so a new key, a withdrawn export or a rotated signing key
// reaches their JWTs and activation tokens in the same delivery.
import { refersTo, type NatsAccount, type Subject } from "../objects.ts";

export const importersOf = (accounts: NatsAccount[], exporter: Subject): NatsAccount[] =>
  accounts.filter((a) =>
    (a.spec.imports ?? []).some((i) => i.accountRef?.kind === exporter.kind && refersTo(i.accountRef, a, exporter)),
  );
