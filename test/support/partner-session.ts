import type { XchainClient } from '@xchain/client';
import type { E2eStack } from './e2e-stack';
import { gatewayClient } from './http';

/** The operator tool against a stack, failing the test when it fails; resolves with its JSON output. */
export function partnerAdmin(e2e: Pick<E2eStack, 'admin'>): (...args: string[]) => Promise<any> {
  return async (...args) => {
    const r = await e2e.admin(...args);
    if (r.code !== 0) throw new Error(`partner-admin ${args[0]} failed: ${r.err}`);
    return r.out;
  };
}

/** What a partner is made with: `createArgs` go to `create-partner`; `key` names an API key to create through the session. */
export interface PartnerSessionOptions {
  createArgs?: string[];
  key?: string;
}

/**
 * A partner as a test meets it: created by the operator tool, signed in (a session issued by the
 * operator tool), with an API key when asked for, and typed gateway clients for the session and
 * the key.
 */
export class PartnerSession {
  private constructor(
    private readonly gatewayUrl: string,
    readonly id: string,
    readonly email: string,
    /** The session's bearer token. */
    readonly token: string,
    private readonly keySecret: string | undefined,
  ) {}

  /** The API key's secret (created with the `key` option). */
  get key(): string {
    if (this.keySecret === undefined) throw new Error(`partner ${this.email} has no API key: create it with the key option`);
    return this.keySecret;
  }

  /** Creates the partner and issues its session (and its key, with `key`). */
  static async create(
    e2e: Pick<E2eStack, 'admin' | 'gatewayUrl'>,
    email: string,
    options: PartnerSessionOptions = {},
  ): Promise<PartnerSession> {
    const admin = partnerAdmin(e2e);
    const { partner_id } = await admin('create-partner', '--email', email, ...(options.createArgs ?? []));
    return PartnerSession.signIn(e2e, email, partner_id as string, options.key);
  }

  /** A session (and a key, with `key`) for a partner that exists already. */
  static async signIn(e2e: Pick<E2eStack, 'admin' | 'gatewayUrl'>, email: string, id: string, key?: string): Promise<PartnerSession> {
    const { token } = await partnerAdmin(e2e)('issue-session', '--email', email);
    const secret =
      key === undefined
        ? undefined
        : (await gatewayClient(e2e.gatewayUrl, { sessionToken: token as string }).createPartnerKey({ name: key })).secret;
    return new PartnerSession(e2e.gatewayUrl, id, email, token as string, secret);
  }

  /** The gateway as this partner's session. */
  get session(): XchainClient {
    return gatewayClient(this.gatewayUrl, { sessionToken: this.token });
  }

  /** The gateway with this partner's API key (created with the `key` option). */
  get keyed(): XchainClient {
    return gatewayClient(this.gatewayUrl, { apiKey: this.key });
  }
}
