import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** One variable of an env schema, as its source declares it. */
export interface EnvVariable {
  name: string;
  /** `integer 1–100`, `URL`, `one of `oracle`, `0x``… */
  type: string;
  /** The default, as a literal; undefined when there is none. */
  default?: string;
  optional: boolean;
  /** The JSDoc comment right above the variable, else its `.describe()`/`.meta({ description })` text. */
  doc?: string;
}

/** A titled group of variables (`envSection('Chains', {...})`), or the variables a schema declares itself (no title). */
export interface EnvSection {
  title?: string;
  /** The doc comment above the section's constant. */
  doc?: string;
  variables: EnvVariable[];
}

export interface EnvSchema {
  /** The exported constant holding the schema (`GatewayEnv`). */
  name: string;
  /** The schema it extends (`BaseEnv`), if any. */
  extends?: string;
  /** Its variables, in order. */
  variables: EnvVariable[];
  /** The same variables by section, in the order the schema composes them. */
  sections: EnvSection[];
}

interface Info {
  type: string;
  range: [string?, string?];
  default?: string;
  optional: boolean;
  /** From `.describe(text)` or `.meta({ description })` in the chain. */
  description?: string;
}

type Scope = ReadonlyMap<string, ts.Expression>;

/**
 * Reads the env schemas of one source file without running it (an app's env module may parse the
 * environment when imported): every exported `z.object({...})` or `X.extend({...})` whose keys are
 * variable names, with each variable's type, default and doc comment read from its zod chain. A
 * spread of a section's shape (`...Chains.shape`, where `const Chains = envSection('Chains', {...})`
 * in the same file) brings that section's variables, under its title; a spread of anything else
 * (`...BaseEnv.shape`) is skipped.
 */
export function readEnvSchemas(file: string): EnvSchema[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const consts = new Map<string, ts.Expression>();
  const constDocs = new Map<string, string>();
  for (const stmt of source.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    for (const decl of stmt.declarationList.declarations) {
      if (!ts.isIdentifier(decl.name) || !decl.initializer) continue;
      consts.set(decl.name.text, decl.initializer);
      const doc = docOf(stmt);
      if (doc) constDocs.set(decl.name.text, doc);
    }
  }
  const reader = new ChainReader(consts, source);
  const variable = (prop: ts.PropertyAssignment): EnvVariable => {
    const info = reader.read(prop.initializer, new Map());
    const [min, max] = info.range;
    const range =
      min !== undefined && max !== undefined ? ` ${min}–${max}` : min !== undefined ? ` ≥ ${min}` : max !== undefined ? ` ≤ ${max}` : '';
    const doc = docOf(prop) ?? info.description;
    return {
      name: prop.name.getText(source),
      type: `${info.type}${range}`,
      default: info.default,
      optional: info.optional,
      ...(doc ? { doc } : {}),
    };
  };
  const sectionOf = (spread: ts.SpreadAssignment): EnvSection | undefined => {
    const target = spread.expression;
    if (!ts.isPropertyAccessExpression(target) || target.name.text !== 'shape' || !ts.isIdentifier(target.expression)) return undefined;
    const name = target.expression.text;
    const init = consts.get(name);
    if (!init || !ts.isCallExpression(init) || !ts.isIdentifier(init.expression) || init.expression.text !== 'envSection') return undefined;
    const [title, shape] = init.arguments;
    if (!title || !ts.isStringLiteralLike(title) || !shape || !ts.isObjectLiteralExpression(shape))
      throw new Error(`${file}: ${name}: envSection takes a title and an object of variables`);
    const doc = constDocs.get(name);
    return { title: title.text, ...(doc ? { doc } : {}), variables: shape.properties.filter(ts.isPropertyAssignment).map(variable) };
  };
  const schemas: EnvSchema[] = [];
  for (const stmt of source.statements) {
    if (!ts.isVariableStatement(stmt) || !stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
    for (const decl of stmt.declarationList.declarations) {
      if (!ts.isIdentifier(decl.name) || !decl.initializer) continue;
      const found = findObjectSchema(decl.initializer);
      if (!found) continue;
      const sections: EnvSection[] = [];
      for (const prop of found.shape.properties) {
        if (ts.isSpreadAssignment(prop)) {
          const section = sectionOf(prop);
          if (section) sections.push(section);
        } else if (ts.isPropertyAssignment(prop)) {
          const last = sections[sections.length - 1];
          if (last && last.title === undefined) last.variables.push(variable(prop));
          else sections.push({ variables: [variable(prop)] });
        }
      }
      const variables = sections.flatMap((s) => s.variables);
      if (variables.length === 0) continue;
      schemas.push({ name: decl.name.text, extends: found.extends, variables, sections });
    }
  }
  return schemas;
}

function findObjectSchema(expr: ts.Expression): { shape: ts.ObjectLiteralExpression; extends?: string } | undefined {
  let found: { shape: ts.ObjectLiteralExpression; extends?: string } | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const arg = node.arguments[0];
      if ((method === 'object' || method === 'extend') && arg && ts.isObjectLiteralExpression(arg) && isEnvShape(arg)) {
        found = { shape: arg, extends: method === 'extend' ? node.expression.expression.getText() : undefined };
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(expr);
  return found;
}

/** An object of variables: UPPER_CASE keys and spreads of other shapes (sections, `...BaseEnv.shape`) only. */
const isEnvShape = (obj: ts.ObjectLiteralExpression) =>
  obj.properties.length > 0 &&
  obj.properties.every((p) => ts.isSpreadAssignment(p) || (ts.isPropertyAssignment(p) && /^[A-Z][A-Z0-9_]*$/.test(p.name.getText())));

/** The last JSDoc block above a property (a stray earlier block belongs to nobody). */
function docOf(node: ts.Node): string | undefined {
  const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc;
  const last = docs?.[docs.length - 1];
  const text = last ? ts.getTextOfJSDocComment(last.comment) : undefined;
  return text ? text.replace(/\s+/g, ' ').trim() : undefined;
}

class ChainReader {
  constructor(
    private readonly consts: ReadonlyMap<string, ts.Expression>,
    private readonly source: ts.SourceFile,
  ) {}

  read(node: ts.Expression, scope: Scope): Info {
    if (ts.isParenthesizedExpression(node)) return this.read(node.expression, scope);
    if (ts.isIdentifier(node)) {
      const bound = scope.get(node.text) ?? this.consts.get(node.text);
      return bound ? this.read(bound, scope) : this.unknown(node);
    }
    if (!ts.isCallExpression(node)) return this.unknown(node);
    const callee = node.expression;
    const args = node.arguments;
    if (ts.isIdentifier(callee)) return this.helper(callee.text, args, scope, node);
    if (!ts.isPropertyAccessExpression(callee)) return this.unknown(node);
    const method = callee.name.text;
    const target = callee.expression.getText(this.source);
    if (target === 'z' || target === 'z.coerce') return this.base(method, args, node);
    const info = this.read(callee.expression, scope);
    switch (method) {
      case 'int':
        return { ...info, type: info.type === 'number' ? 'integer' : info.type };
      case 'min':
        if (info.type === 'text' && args[0]?.getText(this.source) === '1') return { ...info, type: 'non-empty text' };
        return args[0] ? { ...info, range: [this.value(args[0], scope), info.range[1]] } : info;
      case 'max':
        return args[0] ? { ...info, range: [info.range[0], this.value(args[0], scope)] } : info;
      case 'default':
        return args[0] ? { ...info, default: this.value(args[0], scope) } : info;
      case 'optional':
        return { ...info, optional: true };
      case 'url':
        return { ...info, type: 'URL' };
      case 'describe':
        return args[0] && ts.isStringLiteralLike(args[0]) ? { ...info, description: args[0].text } : info;
      case 'meta': {
        const meta = args[0];
        const prop =
          meta && ts.isObjectLiteralExpression(meta)
            ? meta.properties.find((p) => ts.isPropertyAssignment(p) && p.name.getText(this.source) === 'description')
            : undefined;
        return prop && ts.isPropertyAssignment(prop) && ts.isStringLiteralLike(prop.initializer)
          ? { ...info, description: prop.initializer.text }
          : info;
      }
      case 'regex':
        return { ...info, type: args[0] && ts.isRegularExpressionLiteral(args[0]) ? `text matching \`${args[0].text}\`` : info.type };
      default:
        // transform, pipe, refine, superRefine: checks on the value, not its kind or default.
        return info;
    }
  }

  private base(method: string, args: ts.NodeArray<ts.Expression>, node: ts.Node): Info {
    const plain = (type: string): Info => ({ type, range: [], optional: false });
    switch (method) {
      case 'string':
        return plain('text');
      case 'number':
        return plain('number');
      case 'url':
        return plain('URL');
      case 'stringbool':
        return plain('boolean');
      case 'enum': {
        const list = args[0];
        const names =
          list && ts.isArrayLiteralExpression(list)
            ? list.elements.map((e) => `\`${ts.isStringLiteral(e) ? e.text : e.getText()}\``)
            : undefined;
        return plain(names ? `one of ${names.join(', ')}` : 'one of a list');
      }
      default:
        return this.unknown(node);
    }
  }

  /** The service-kit helpers, and a file's own helpers (`const interval = (fallback) => z…`). */
  private helper(name: string, args: ts.NodeArray<ts.Expression>, scope: Scope, node: ts.Node): Info {
    const arg = (i: number) => (args[i] ? this.value(args[i], scope) : undefined);
    switch (name) {
      case 'port':
        return { type: 'port', range: [], default: arg(0), optional: false };
      case 'millis':
        return { type: 'milliseconds', range: ['1', arg(1) ?? '600000'], default: arg(0), optional: false };
      case 'parsedText': {
        const fallback = arg(1);
        return {
          type: 'text',
          range: [],
          default: fallback === undefined || fallback === '``' ? undefined : fallback,
          optional: fallback === undefined || fallback === '``',
        };
      }
    }
    const fn = this.consts.get(name);
    if (fn && ts.isArrowFunction(fn) && !ts.isBlock(fn.body)) {
      const bound = new Map(scope);
      fn.parameters.forEach((p, i) => {
        const a = args[i];
        if (ts.isIdentifier(p.name) && a) bound.set(p.name.text, a);
      });
      return this.read(fn.body, bound);
    }
    return this.unknown(node);
  }

  /** A literal argument as the doc shows it: numbers evaluated (`7 * 86_400` → 604800), text quoted. */
  private value(node: ts.Expression, scope: Scope): string {
    const n = this.number(node, scope);
    if (n !== undefined) return String(n);
    if (ts.isStringLiteralLike(node)) return `\`${node.text}\``;
    if (ts.isIdentifier(node)) {
      const bound = scope.get(node.text) ?? this.consts.get(node.text);
      if (bound && ts.isStringLiteralLike(bound))
        return bound.text.length > 48 ? `\`${node.text}\` (published for development: never for real money)` : `\`${bound.text}\``;
      if (bound) return this.value(bound, scope);
    }
    return `\`${node.getText(this.source)}\``;
  }

  private number(node: ts.Expression, scope: Scope): number | undefined {
    if (ts.isParenthesizedExpression(node)) return this.number(node.expression, scope);
    if (ts.isNumericLiteral(node)) return Number(node.text);
    if (ts.isIdentifier(node)) {
      const bound = scope.get(node.text);
      return bound ? this.number(bound, scope) : undefined;
    }
    if (ts.isBinaryExpression(node)) {
      const a = this.number(node.left, scope);
      const b = this.number(node.right, scope);
      if (a === undefined || b === undefined) return undefined;
      switch (node.operatorToken.kind) {
        case ts.SyntaxKind.AsteriskToken:
          return a * b;
        case ts.SyntaxKind.PlusToken:
          return a + b;
        case ts.SyntaxKind.MinusToken:
          return a - b;
      }
    }
    return undefined;
  }

  private unknown(node: ts.Node): Info {
    return { type: `\`${node.getText(this.source).replace(/\s+/g, ' ').slice(0, 60)}\``, range: [], optional: false };
  }
}
