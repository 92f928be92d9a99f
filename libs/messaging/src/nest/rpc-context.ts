import { BaseRpcContext } from '@nestjs/microservices';
import type { MsgHdrs } from '@nats-io/transport-node';
import { Code, RpcError, errorInfo, type CallerContext, type RpcAccess } from '@xchain/contracts';

/** The partner a `partner` operation acts for: the one of the caller's session, never one named in a body. */
export interface PartnerSession {
  partnerId: string;
  sessionId: string;
}

/**
 * What a handler knows of one request besides its body: the subject, the caller context the
 * gateway forwarded, and — once the access guard passed a `partner` operation — the session's
 * partner. Nest hands it to handlers as their second argument (`@Ctx()`).
 */
export class NatsRpcContext extends BaseRpcContext<[subject: string, caller: CallerContext | undefined, headers: MsgHdrs | undefined]> {
  /** Set by the access guard for a `partner` operation. */
  session: PartnerSession | undefined;
  /**
   * Set by an `@Rpc` method that Nest's pipeline adds nothing to: the method bound to its
   * controller, which the transport calls directly from then on.
   */
  direct: DirectMethod | undefined;

  constructor(
    subject: string,
    caller: CallerContext | undefined,
    headers: MsgHdrs | undefined,
    /** Who may call the operation, from its contract (checked by `authorize`). */
    readonly access: RpcAccess,
  ) {
    super([subject, caller, headers]);
  }

  get subject(): string {
    return this.args[0];
  }

  get caller(): CallerContext | undefined {
    return this.args[1];
  }

  get headers(): MsgHdrs | undefined {
    return this.args[2];
  }
}

/** An `@Rpc` method bound to its controller: the validated request and the context in, the reply out. */
export type DirectMethod = (request: unknown, ctx: NatsRpcContext) => unknown;

/** A handler's context for its contract's access: a `partner` operation always has its session. */
export type RpcContextFor<A extends RpcAccess> = A extends { access: 'partner' }
  ? NatsRpcContext & { session: PartnerSession }
  : NatsRpcContext;

/**
 * Who may call an operation, checked here and nowhere else (D14). The bus lets only the contract's
 * declared callers publish its subject (bus permissions generated from the same contract), so an
 * `internal` or `operator` request cannot come from anyone else, whatever its `x-caller` header
 * says, and the gateway's caller context can be trusted. What remains to check is which client
 * the gateway acts for: a `partner` operation needs a partner session.
 */
export function authorize(ctx: NatsRpcContext): void {
  if (ctx.access.access !== 'partner') return;
  const caller = ctx.caller;
  if (caller?.kind !== 'partner_session') {
    throw new RpcError(Code.UNAUTHENTICATED, 'a partner session is required', [errorInfo('SESSION_REQUIRED')]);
  }
  ctx.session = { partnerId: caller.partner_id, sessionId: caller.session_id };
}
