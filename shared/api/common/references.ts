// References between objects and to Secret keys, shared by every group.
import type { Static } from "typebox";
import { DEFAULT_CREDENTIALS_KEY } from "../constants/secret-keys.ts";
import { Struct, NonEmptyText, Optional, type StructOptions } from "./fields.ts";

/** Longest Kubernetes object name (DNS subdomain). */
export const NAME_MAX_LENGTH = 253;
/** Longest namespace name (DNS label). */
export const NAMESPACE_MAX_LENGTH = 63;

export const DEFAULT_CA_KEY = "ca.crt";

/** The fields of a reference to an object, namespace optional; reused by kind-qualified references. */
export const objectReferenceProperties = (target: string) => ({
  name: NonEmptyText(`Name of the ${target}.`, { maxLength: NAME_MAX_LENGTH }),
  namespace: Optional(
    NonEmptyText(
      `Namespace of the ${target}. Empty means the referring object's own namespace; any other ` +
        "namespace is followed only while a NatsReferenceGrant in that namespace admits the reference.",
      { maxLength: NAMESPACE_MAX_LENGTH },
    ),
  ),
});

/** A reference to an object, optionally in another namespace. */
export const ObjectReference = (target: string, description: string, options: StructOptions = {}) =>
  Struct(objectReferenceProperties(target), description, options);
export type ObjectReference = Static<ReturnType<typeof ObjectReference>>;

/** A reference to a Secret in the referring object's own namespace. */
export const SecretReference = (description: string) =>
  Struct(
    { name: NonEmptyText("Name of the Secret, in the referring object's namespace.", { maxLength: NAME_MAX_LENGTH }) },
    description,
  );
export type SecretReference = Static<ReturnType<typeof SecretReference>>;

/** A key of a Secret in the referring object's namespace, with a default key. */
export const SecretKeySelector = (description: string, defaultKey: string, keyMeaning: string) =>
  Struct(
    {
      name: NonEmptyText("Name of the Secret, in the referring object's namespace.", { maxLength: NAME_MAX_LENGTH }),
      key: Optional(
        NonEmptyText(`Key in the Secret holding ${keyMeaning}.`, { maxLength: NAME_MAX_LENGTH, default: defaultKey }),
      ),
    },
    description,
  );

/** A Secret key holding a NATS credentials (`.creds`) file; the key defaults to `user.creds`. */
export const CredentialsSecretKeySelector = () =>
  SecretKeySelector("Secret key holding a NATS credentials file.", DEFAULT_CREDENTIALS_KEY, "the credentials file");

/** A Secret key holding a PEM CA bundle; the key defaults to `ca.crt`. */
export const CASecretKeySelector = () =>
  SecretKeySelector("Secret key holding a PEM-encoded CA bundle.", DEFAULT_CA_KEY, "the PEM CA bundle");

/** NATS credentials: a user JWT and its seed in one `.creds` file. */
export const Credentials = (description: string) =>
  Struct({ secretKeyRef: CredentialsSecretKeySelector() }, description);
export type Credentials = Static<ReturnType<typeof Credentials>>;

/** A CA bundle that verifies server certificates. */
export const CertificateAuthority = (description: string) =>
  Struct({ secretKeyRef: CASecretKeySelector() }, description);
export type CertificateAuthority = Static<ReturnType<typeof CertificateAuthority>>;
