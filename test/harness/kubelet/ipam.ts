// Pod addresses P.2 ... P.<last> within a run's reserved prefix P (127.A.B
// for loopback pods, 10.A.B up to .127 for network-namespace pods).
// A Pod name keeps its address across re-creations (StatefulSet Pods come
// back with the same IP, so routes stay stable); addresses of names that no
// longer have a Pod are reused only when the block runs out.
import { readFileSync, writeFileSync } from "node:fs";

export class Ipam {
  private readonly prefix: string;
  private readonly file: string;
  private readonly last: number;
  private byKey = new Map<string, string>();

  constructor(prefix: string, file: string, last = 254) {
    this.prefix = prefix;
    this.file = file;
    this.last = last;
    try {
      this.byKey = new Map(Object.entries(JSON.parse(readFileSync(file, "utf8")) as Record<string, string>));
    } catch {
      // fresh run
    }
  }

  allocate(key: string, liveKeys: Set<string>): string {
    const existing = this.byKey.get(key);
    if (existing !== undefined) return existing;
    const used = new Set(this.byKey.values());
    let ip: string | undefined;
    for (let n = 2; n <= this.last && ip === undefined; n++)
      if (!used.has(`${this.prefix}.${n}`)) ip = `${this.prefix}.${n}`;
    if (ip === undefined) {
      const stale = [...this.byKey].find(([k]) => !liveKeys.has(k));
      if (stale === undefined) throw new Error(`no free pod address in ${this.prefix}.2-${this.last}`);
      this.byKey.delete(stale[0]);
      ip = stale[1];
    }
    this.byKey.set(key, ip);
    writeFileSync(this.file, JSON.stringify(Object.fromEntries(this.byKey), null, 1));
    return ip;
  }
}
