/** A failed request to the API server, as a value the caller can inspect. */
export class KubeRequestError extends Error {
  override readonly name = "KubeRequestError";
  /** HTTP status, or 0 when the request never got an answer. */
  readonly code: number;
  /** The Status reason (`Conflict`, `NotFound`, `Invalid`, …) when the server sent one. */
  readonly reason: string;

  constructor(code: number, reason: string, message: string) {
    super(message);
    this.code = code;
    this.reason = reason;
  }

  get isConflict(): boolean {
    return this.code === 409;
  }

  get isNotFound(): boolean {
    return this.code === 404;
  }

  /** Worth retrying as is: no answer, throttling, time-outs and server faults. */
  get isTransient(): boolean {
    return this.code === 0 || this.code === 408 || this.code === 429 || this.code >= 500;
  }
}

export function isKubeRequestError(error: unknown): error is KubeRequestError {
  return error instanceof KubeRequestError;
}
