import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

/** Where the document's component schemas live for Ajv: one schema whose `$defs` are the components. */
const COMPONENTS_ID = 'https://xchain.invalid/openapi/components.json';

/** The document's `#/components/schemas/X` references, pointed into COMPONENTS_ID's `$defs`. */
function retarget(schema: unknown, prefix: string): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${prefix}#/$defs/`)) as Json;
}

/** What one answer was checked against, and what did not fit. */
export interface ConformanceResult {
  /** The response entry used: the status itself, or `default` for an error the operation does not list. */
  documentedAs: string;
  errors: string[];
}

/**
 * Checks real answers against the OpenAPI document the gateway serves: each JSON body is validated
 * with Ajv (JSON Schema 2020-12, as OpenAPI 3.1 uses, strict mode, formats checked) against the
 * schema the document gives for its operation (method and path template as in `paths`) and status.
 */
export class OpenApiConformance {
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  private constructor(readonly document: Json) {
    // strict: a keyword Ajv does not know, an unknown format or a contradiction in a schema is an
    // error here, not silently ignored (union types, `type: [string, integer]`, are plain JSON
    // Schema: allowed); allErrors: report every misfit of an answer at once.
    this.ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: retarget(document['components']?.schemas ?? {}, '') });
  }

  /** Loads the document a gateway serves at `/json/v1/openapi.json`. */
  static async load(gatewayUrl: string): Promise<OpenApiConformance> {
    const res = await fetch(`${gatewayUrl}/json/v1/openapi.json`);
    if (res.status !== 200) throw new Error(`GET /json/v1/openapi.json answered ${res.status}`);
    return new OpenApiConformance((await res.json()) as Json);
  }

  /** Compiles every component schema (strict): throws on the first one Ajv refuses. */
  compileComponents(): string[] {
    const names = Object.keys(this.document['components']?.schemas ?? {});
    for (const name of names) this.validatorFor({ $ref: `${COMPONENTS_ID}#/$defs/${name}` }, `component ${name}`);
    return names;
  }

  /** The operation the document has for a method and path template (`/json/v1/orders/{quote_hash}`). */
  operation(method: string, pathTemplate: string): Json {
    const op = this.document['paths']?.[pathTemplate]?.[method.toLowerCase()] as Json | undefined;
    if (!op) throw new Error(`the document has no operation ${method} ${pathTemplate}`);
    return op;
  }

  /**
   * Checks an answer's JSON body for (method, path template, status). A 2xx must be listed by the
   * operation; an error may fall to its `default` (google.rpc.Status).
   */
  checkAnswer(method: string, pathTemplate: string, status: number, body: unknown, mediaType = 'application/json'): ConformanceResult {
    const op = this.operation(method, pathTemplate);
    const responses = op['responses'] as Record<string, Json>;
    const documentedAs = String(status) in responses ? String(status) : status >= 400 ? 'default' : undefined;
    if (documentedAs === undefined || !responses[documentedAs])
      return { documentedAs: 'none', errors: [`${method} ${pathTemplate} does not document status ${status}`] };
    const schema = responses[documentedAs]!['content']?.[mediaType]?.schema;
    if (!schema) return { documentedAs, errors: [`${method} ${pathTemplate} ${documentedAs} has no ${mediaType} schema`] };
    return { documentedAs, errors: this.run(schema, body, `${op['operationId']} ${documentedAs}`) };
  }

  /** Checks a request body against the operation's `requestBody` (what a generated client would send). */
  checkRequest(method: string, pathTemplate: string, body: unknown): string[] {
    const op = this.operation(method, pathTemplate);
    const schema = op['requestBody']?.content?.['application/json']?.schema;
    if (!schema) return [`${method} ${pathTemplate} takes no JSON body`];
    return this.run(schema, body, `${op['operationId']} request`);
  }

  /**
   * Reads a fetch Response, checks its content type and its JSON body against the document, fails
   * the test with every misfit, and returns the parsed body.
   */
  async expectAnswer(res: Response, method: string, pathTemplate: string): Promise<any> {
    const text = await res.text();
    expect([pathTemplate, res.status, res.headers.get('content-type')]).toEqual([
      pathTemplate,
      res.status,
      expect.stringMatching(/^application\/json(;|$)/),
    ]);
    const body = JSON.parse(text) as unknown;
    const result = this.checkAnswer(method, pathTemplate, res.status, body);
    expect({ answer: `${method} ${pathTemplate} ${res.status}`, errors: result.errors }).toEqual({
      answer: `${method} ${pathTemplate} ${res.status}`,
      errors: [],
    });
    return body;
  }

  private run(schema: Json, value: unknown, label: string): string[] {
    const validate = this.validatorFor(retarget(schema, COMPONENTS_ID), label);
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${label}: ${e.instancePath || '(root)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
    );
  }

  private validatorFor(schema: Json, label: string): ValidateFunction {
    const key = JSON.stringify(schema);
    let v = this.compiled.get(key);
    if (!v) {
      try {
        v = this.ajv.compile(schema);
      } catch (err) {
        throw new Error(`${label}: Ajv refuses the schema: ${(err as Error).message}`);
      }
      this.compiled.set(key, v);
    }
    return v;
  }
}
