// The kubelet logs to a file in the work dir, never to stdout.
import { appendFileSync } from "node:fs";

export type Logger = (message: string) => void;

export function fileLogger(file: string): Logger {
  return (message: string) => {
    try {
      appendFileSync(file, `${new Date().toISOString()} ${message}\n`);
    } catch {
      // logging must never take the kubelet down
    }
  };
}
