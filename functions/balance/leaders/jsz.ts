// The answers of `$SYS.REQ.SERVER.PING.STATSZ` and `.JSZ` as nats-server 2.15 sends them, cut down
// to the fields the balancer reads. Plain data: the wire types of observe.ts and the fixtures.

export interface JszPeer {
  name: string;
  current?: boolean;
  offline?: boolean;
  /** Raft entries behind the leader. */
  lag?: number;
}

/** A Raft group as one server sees it; only its leader's view of the replicas is reliable. */
export interface JszCluster {
  name?: string;
  leader?: string;
  replicas?: JszPeer[];
}

export interface JszConsumer {
  name: string;
  cluster?: JszCluster;
}

export interface JszStream {
  name: string;
  cluster?: JszCluster;
  config?: { placement?: { cluster?: string; tags?: string[] }; metadata?: Record<string, string> };
  consumer_detail?: JszConsumer[];
}

export interface JszAccount {
  /** The account's name tag where it has one (a JWT account's name), else its key. */
  name: string;
  /** The account's key: what the `acc.<key>.` stepdown imports are named by. */
  id?: string;
  stream_detail?: JszStream[];
}

/** One server's JSZ answer, or the concatenation of its pages. */
export interface JszData {
  meta_cluster?: JszCluster;
  account_details?: JszAccount[];
  /** Accounts there are to page through. */
  total?: number;
}

export interface ServerIdentity {
  name: string;
  id?: string;
  cluster?: string;
  tags?: string[];
}

export interface JszReply {
  server?: ServerIdentity;
  data?: JszData;
  error?: { code?: number; description?: string };
}

export interface StatszReply {
  server?: ServerIdentity;
  statsz?: { routes?: { name?: string }[] };
}

/** What one server on the roster answered; no `jsz` when it missed a page. */
export interface ServerReport {
  server: string;
  jsz?: JszData;
}
