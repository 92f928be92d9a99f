import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Files that are tests or test support, not part of a service's layers. */
const TEST_FILE = /\.(spec|int|e2e)\.ts$|\.testing\.ts$/;

/** The relative imports of one source file (`import … from './x'`, `export … from`, `import('./x')`), types included. */
export function relativeImports(source: string): string[] {
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]*)['"]/g;
  for (let m = re.exec(source); m; m = re.exec(source)) out.push(m[1]!);
  return out;
}

/** Every non-test `.ts` file under `dir`, as paths relative to `root`. */
export function sourceFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !TEST_FILE.test(p)) out.push(relative(root, p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

/** The file graph of one source tree: each file and the files of the same tree it imports. */
export function fileGraph(root: string, srcDir: string): Map<string, string[]> {
  const files = sourceFiles(root, srcDir);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const targets = new Set<string>();
    for (const spec of relativeImports(readFileSync(join(root, f), 'utf8'))) {
      const base = relative(root, resolve(root, dirname(f), spec));
      const hit = [`${base}.ts`, join(base, 'index.ts'), base].find((c) => known.has(c));
      if (hit && hit !== f) targets.add(hit);
    }
    graph.set(f, [...targets].sort());
  }
  return graph;
}

/**
 * The unit an import between folders is counted by: a file's folder below `srcDir`, or the file
 * itself when it sits at the top of `srcDir` (main.ts, app.module.ts, env.ts are layers of their own).
 */
export function unitOf(srcDir: string, file: string): string {
  const rest = relative(srcDir, file);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash) + '/';
}

/** The graph of units (folders and top files): an edge for every import between two different units. */
export function unitGraph(srcDir: string, files: Map<string, string[]>): Map<string, string[]> {
  const g = new Map<string, Set<string>>();
  for (const [f, targets] of files) {
    const from = unitOf(srcDir, f);
    if (!g.has(from)) g.set(from, new Set());
    for (const t of targets) {
      const to = unitOf(srcDir, t);
      if (to !== from) g.get(from)!.add(to);
    }
  }
  return new Map([...g].map(([k, v]) => [k, [...v].sort()]));
}

/** Strongly connected components of more than one node (Tarjan): each is a circle of imports. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      for (;;) {
        const w = stack.pop()!;
        on.delete(w);
        comp.push(w);
        if (w === v) break;
      }
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** The imports inside a circle of units that tie it (file → file), to say what to move. */
export function ties(srcDir: string, files: Map<string, string[]>, circle: string[]): string[] {
  const members = new Set(circle);
  const out: string[] = [];
  for (const [f, targets] of files) {
    const from = unitOf(srcDir, f);
    if (!members.has(from)) continue;
    for (const t of targets) {
      const to = unitOf(srcDir, t);
      if (to !== from && members.has(to)) out.push(`${f} -> ${t}`);
    }
  }
  return out.sort();
}

export interface LayerReport {
  srcDir: string;
  /** Circles between files. */
  fileCircles: string[][];
  /** Circles between folders (and top files): some import in each runs back up. */
  unitCircles: { units: string[]; ties: string[] }[];
}

/** The report of every `apps/<service>/src` of the checkout at `root`. */
export function layerReports(root: string): LayerReport[] {
  return readdirSync(join(root, 'apps'))
    .map((app) => join('apps', app, 'src'))
    .filter((srcDir) => existsSync(join(root, srcDir)) && !srcDir.startsWith(join('apps', 'web')))
    .map((srcDir) => {
      const files = fileGraph(root, join(root, srcDir));
      return {
        srcDir,
        fileCircles: circles(files),
        unitCircles: circles(unitGraph(srcDir, files)).map((units) => ({ units, ties: ties(srcDir, files, units) })),
      };
    });
}
