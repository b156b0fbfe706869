// Paging through a JSZ answer. nats-server answers at most 1024 accounts in one JSZ page (over
// `$SYS.REQ.SERVER.PING.JSZ` and the monitoring port's /jsz alike) and says in `total` how many
// there are, so whoever reads the accounts pages through them all, or misses the rest.

/** Accounts per JSZ page: the most nats-server answers with in one. */
export const JSZ_PAGE = 1024;

/** One page to read: `offset` and `limit` as JSZ takes them. */
export interface JszPage {
  offset: number;
  limit: number;
}

/**
 * Reads JSZ page after page: `read` asks for one and says how many accounts there are in all
 * (`total` of the answer; undefined when the answer does not say, or the page failed and the
 * caller stops). Pages go on until they have covered the total.
 */
export async function forEachJszPage(read: (page: JszPage) => Promise<number | undefined>): Promise<void> {
  for (let offset = 0; ; offset += JSZ_PAGE) {
    const total = await read({ offset, limit: JSZ_PAGE });
    if (total === undefined || total <= offset + JSZ_PAGE) return;
  }
}
