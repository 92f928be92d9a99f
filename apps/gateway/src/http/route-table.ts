import type { HttpMethod, HttpOperation } from '@xchain/contracts';

/** Knows every path the gateway serves, to tell "no such path" (404) from "wrong method" (405). */
export class RouteTable {
  private readonly routes: { pattern: RegExp; method: HttpMethod | 'HEAD' }[] = [];

  /** `path` segments: literal, a parameter (`{id}`, `:id`), or a last `*` for anything below. */
  add(method: HttpMethod | 'HEAD', path: string): void {
    const source = path
      .split('/')
      .map((seg) =>
        seg === '*' ? '.*' : seg.startsWith('{') || seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    this.routes.push({ pattern: new RegExp(`^${source}/?$`), method });
  }

  addOperations(ops: readonly HttpOperation[]): void {
    for (const op of ops) this.add(op.method, `/json${op.path}`);
  }

  /** Methods allowed at a path (empty when the path is unknown). */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) methods.add(r.method);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}
