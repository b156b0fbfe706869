// References to accounts, which may be either kind of account.
import type { Static } from "typebox";
import { Struct, OneOf } from "../common/fields.ts";
import { objectReferenceProperties } from "../common/references.ts";

export const ACCOUNT_KINDS = ["NatsAccount", "NatsSystemAccount"] as const;

export const AccountReference = (description: string, options: { rules?: { rule: string; message: string }[] } = {}) =>
  Struct(
    { kind: OneOf(ACCOUNT_KINDS, "Kind of the account."), ...objectReferenceProperties("account") },
    description,
    options,
  );
export type AccountReference = Static<ReturnType<typeof AccountReference>>;
