// Kubernetes quantities as whole bytes: enough for memory limits and volume sizes.

const binary: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const decimal: Record<string, bigint> = {
  "": 1n,
  k: 10n ** 3n,
  M: 10n ** 6n,
  G: 10n ** 9n,
  T: 10n ** 12n,
  P: 10n ** 15n,
  E: 10n ** 18n,
};

/** Bytes of a quantity such as `4Gi`, `500M`, `1e9` or 1024; fractions are rounded up. Undefined when unreadable. */
export function parseBytes(quantity: string | number | undefined): bigint | undefined {
  if (quantity === undefined) return undefined;
  if (typeof quantity === "number")
    return Number.isFinite(quantity) && quantity >= 0 ? BigInt(Math.ceil(quantity)) : undefined;
  const match = /^\+?([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/.exec(
    quantity.trim(),
  );
  if (!match) return undefined;
  const [, digits = "0", suffix = ""] = match;
  const [whole = "0", fraction = ""] = digits.split(".");
  const scale = 10n ** BigInt(fraction.length);
  const mantissa = BigInt(`${whole}${fraction}` || "0");
  let multiplier: bigint;
  let divisor = scale;
  if (suffix in binary) multiplier = binary[suffix] ?? 1n;
  else if (suffix === "m") {
    multiplier = 1n;
    divisor = scale * 1000n;
  } else if (/^[eE]/.test(suffix)) {
    const exponent = Number(suffix.slice(1));
    if (exponent >= 0) multiplier = 10n ** BigInt(exponent);
    else {
      multiplier = 1n;
      divisor = scale * 10n ** BigInt(-exponent);
    }
  } else multiplier = decimal[suffix] ?? 1n;
  const product = mantissa * multiplier;
  return (product + divisor - 1n) / divisor;
}

/** The shortest exact binary-suffixed form of a byte count (3221225472 → `3Gi`), or plain digits. */
export function formatBytes(bytes: bigint): string {
  if (bytes === 0n) return "0";
  for (const suffix of ["Ei", "Pi", "Ti", "Gi", "Mi", "Ki"]) {
    const unit = binary[suffix] ?? 1n;
    if (bytes % unit === 0n) return `${bytes / unit}${suffix}`;
  }
  return bytes.toString();
}
