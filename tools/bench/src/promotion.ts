/** One young-generation GC (scavenge) from a `--trace-gc-nvp` line: milliseconds since the process started, bytes promoted. */
export interface Scavenge {
  atMs: number;
  promoted: number;
}

/**
 * The scavenges in a log written with V8's `--trace-gc-nvp` (one `name=value` line per GC; a
 * scavenge is `gc=s`). Other lines (the service's own JSON logs, full GCs) are skipped.
 */
export function scavenges(log: string): Scavenge[] {
  const out: Scavenge[] = [];
  for (const line of log.split('\n')) {
    const m = /\s(\d+) ms: pause=[\d.]+ mutator=[\d.]+ gc=s\s.*\spromoted=(\d+)/.exec(line);
    if (m) out.push({ atMs: Number(m[1]), promoted: Number(m[2]) });
  }
  return out;
}
