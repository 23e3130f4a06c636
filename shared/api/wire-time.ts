// Times as Kubernetes writes them on the wire: metav1.Time (RFC 3339, UTC, whole seconds) and metav1.MicroTime
// (RFC 3339 with microseconds, as Leases hold). The one place kmaint, the sim, the soak and the benchmarks format them
// (the lint rule of tools/lint/written-once.json refuses a new `toISOString().replace(…)`).

/** metav1.Time: `2026-01-01T00:00:00Z`, the fraction dropped (as Go's time.Truncate(time.Second)); a number is epoch ms. */
export function rfc3339Seconds(at: Date | number): string {
  return (typeof at === 'number' ? new Date(at) : at).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** metav1.MicroTime: `2026-01-01T00:00:00.123000Z` (JavaScript's milliseconds, padded to microseconds). */
export function microTime(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
