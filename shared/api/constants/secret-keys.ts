/** The Secret key a credentials file is read from when a `secretKeyRef` names no key. */
export const DEFAULT_CREDENTIALS_KEY = "user.creds";
