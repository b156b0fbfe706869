// The digest status.jwtHash shows: SHA-256 of the JWT, hex.
import { createHash } from "node:crypto";

export const jwtHash = (jwt: string): string => createHash("sha256").update(jwt).digest("hex");
