/** One garbage collection from a `--trace-gc-nvp` line. */
export interface Gc {
  /** Milliseconds since the process started. */
  atMs: number;
  /** V8's `gc=`: `s` a scavenge (young generation), `mc` a full GC (mark-compact), others rarer. */
  kind: string;
  /** Bytes a scavenge moved to the old generation. */
  promoted: number;
  /** Bytes of objects in the heap after the GC, and of those, the ones left in the young generation. */
  endObjectSize: number;
  newSpaceSurvived: number;
}

const NVP = /\s(\d+) ms: pause=[\d.]+ mutator=[\d.]+ gc=(\w+)\s/;

function field(line: string, name: string): number {
  const m = new RegExp(`\\s${name}=(\\d+)`).exec(line);
  return m ? Number(m[1]) : 0;
}

/** The GCs in a log written with V8's `--trace-gc-nvp` (one `name=value` line per GC). Other lines (the service's own JSON logs) are skipped. */
export function gcs(log: string): Gc[] {
  const out: Gc[] = [];
  for (const line of log.split('\n')) {
    const m = NVP.exec(line);
    if (!m) continue;
    out.push({
      atMs: Number(m[1]),
      kind: m[2]!,
      promoted: field(line, 'promoted'),
      endObjectSize: field(line, 'end_object_size'),
      newSpaceSurvived: field(line, 'new_space_survived'),
    });
  }
  return out;
}

/**
 * Bytes the old generation gained between consecutive scavenges of `run` (GCs in log order):
 * what scavenges promoted plus what was allocated there directly (objects of a site V8 pretenures,
 * large objects). Each scavenge's old generation is its heap after the GC less what stayed young;
 * a pair with another kind of GC between them is not counted, as that GC frees old objects.
 */
export function oldGenerationGrowth(run: readonly Gc[]): number {
  let grown = 0;
  for (let i = 1; i < run.length; i++) {
    const [a, b] = [run[i - 1]!, run[i]!];
    if (a.kind !== 's' || b.kind !== 's') continue;
    grown += Math.max(0, b.endObjectSize - b.newSpaceSurvived - (a.endObjectSize - a.newSpaceSurvived));
  }
  return grown;
}
