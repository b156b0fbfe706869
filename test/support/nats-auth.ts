// NATS decentralised-auth material for tests: an operator that names its system account, the
// system account's JWT, a system user's creds file, and application accounts with JetStream.
// Everything is generated fresh with @nats-io/nkeys and @nats-io/jwt; nothing touches a server.
//
//   const nats = await createOperator();
//   // NatsOperatorTrust (literal form): spec.operatorJWT = nats.operatorJWT,
//   //                                   spec.systemAccountJWT = nats.systemAccount.jwt
//   // Secret for auth.systemCredentials: { "user.creds": nats.systemUserCreds }
//   const app = await nats.signAccount("app", { jetstream: true });
//   // push app.jwt with $SYS.REQ.CLAIMS.UPDATE (Full resolver), then connect with app.userCreds
import {
  createAccount,
  createOperator as createOperatorKey,
  createUser,
  encodeAccount,
  encodeOperator,
  encodeUser,
  fmtCreds,
  type ConnectionType,
  type KeyPair,
} from "@nats-io/jwt";

/** An account JWT with one user of it. */
export interface SignedAccount {
  /** The account's public key (`A…`), the key of a `resolver_preload` entry. */
  publicKey: string;
  /** The account JWT, signed by the operator (or its signing key). */
  jwt: string;
  /** A `.creds` file (JWT and seed) of a user of this account, as a string. */
  userCreds: string;
  /** Signs another user of this account, limited as `limits` says, and returns its `.creds` file. */
  signUser(name: string, limits?: UserLimits): Promise<string>;
}

/** What a user may do: the connection types it may use and the subjects it may publish and subscribe to. */
export interface UserLimits {
  connectionTypes?: ConnectionType[];
  publish?: string[];
  subscribe?: string[];
}

export interface AccountOptions {
  /** JetStream enabled with no limits (memory, file, streams, consumers all unlimited). Without
   * it the account has no JetStream; connections and subscriptions are unlimited either way. */
  jetstream?: boolean;
}

export interface TestOperator {
  /** The operator's public key (`O…`). */
  publicKey: string;
  /** The operator JWT; it names the system account as `system_account`. */
  operatorJWT: string;
  /** The system account: public key and JWT (no JetStream; connections and subscriptions unlimited). */
  systemAccount: { publicKey: string; jwt: string };
  /** A `.creds` file of a user of the system account: what `auth.systemCredentials` holds. */
  systemUserCreds: string;
  /** Signs a new application account under this operator, and a user of it. */
  signAccount(name: string, options?: AccountOptions): Promise<SignedAccount>;
}

export interface OperatorOptions {
  name?: string;
  /** Sign accounts with a signing key the operator JWT lists instead of its identity key. */
  signingKey?: boolean;
}

// An account JWT without `limits` reads as all zeros to nats-server: no connection, no
// subscription. So every account states its limits, unlimited.
const UNLIMITED = {
  subs: -1,
  data: -1,
  payload: -1,
  conn: -1,
  leaf: -1,
  imports: -1,
  exports: -1,
  wildcards: true,
};

/** JetStream is on for an account whose storage limits are not zero; -1 is unlimited. */
const UNLIMITED_JETSTREAM = {
  mem_storage: -1,
  disk_storage: -1,
  streams: -1,
  consumer: -1,
  max_ack_pending: -1,
  mem_max_stream_bytes: -1,
  disk_max_stream_bytes: -1,
};

async function userOf(account: KeyPair, name: string, limits: UserLimits = {}): Promise<string> {
  const user = createUser();
  const jwt = await encodeUser(name, user, account, {
    ...(limits.connectionTypes ? { allowed_connection_types: limits.connectionTypes } : {}),
    ...(limits.publish ? { pub: { allow: limits.publish } } : {}),
    ...(limits.subscribe ? { sub: { allow: limits.subscribe } } : {}),
  });
  return new TextDecoder().decode(fmtCreds(jwt, user));
}

/** A fresh operator, its system account, and a system user. */
export async function createOperator(options: OperatorOptions = {}): Promise<TestOperator> {
  const operator = createOperatorKey();
  const signer = options.signingKey ? createOperatorKey() : operator;
  const system = createAccount();
  const operatorJWT = await encodeOperator(options.name ?? "test-operator", operator, {
    system_account: system.getPublicKey(),
    ...(options.signingKey ? { signing_keys: [signer.getPublicKey()] } : {}),
  });
  const sign = (name: string, account: KeyPair, claims: Parameters<typeof encodeAccount>[2] = {}) =>
    encodeAccount(name, account, claims, { signer });
  const systemJWT = await sign("SYS", system, { limits: UNLIMITED });
  return {
    publicKey: operator.getPublicKey(),
    operatorJWT,
    systemAccount: { publicKey: system.getPublicKey(), jwt: systemJWT },
    systemUserCreds: await userOf(system, "sys"),
    async signAccount(name, accountOptions = {}) {
      const account = createAccount();
      const jwt = await sign(name, account, {
        limits: accountOptions.jetstream ? { ...UNLIMITED, ...UNLIMITED_JETSTREAM } : UNLIMITED,
      });
      return {
        publicKey: account.getPublicKey(),
        jwt,
        userCreds: await userOf(account, `${name}-user`),
        signUser: (user, limits) => userOf(account, user, limits),
      };
    },
  };
}
