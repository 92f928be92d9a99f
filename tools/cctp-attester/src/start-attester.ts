import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CCTP_MESSAGE_TRANSMITTER_V2_ABI, type CctpErrorResponse, type CctpMessagesResponse, addressToBytes32 } from '@xchain/cctp';
import {
  type Address,
  BaseError,
  type Hex,
  type PublicClient,
  TransactionReceiptNotFoundError,
  createPublicClient,
  getAddress,
  http,
  isAddressEqual,
  parseEventLogs,
} from 'viem';
import { privateKeyToAddress, sign } from 'viem/accounts';
import { type AttestPolicy, attestMessages } from './attest';

export interface AttesterDomain {
  rpcUrl: string;
  messageTransmitter: Address;
  tokenMessenger: Address;
}

export interface AttesterOptions {
  /** Loopback port; 0 or unset: a free one. */
  port?: number;
  /** The address it listens on (default 127.0.0.1); `url` stays loopback's. */
  host?: string;
  /** The source chains it watches, by CCTP domain id. */
  domains: Record<number, AttesterDomain>;
  /** The attester's private key (a dev key): the stand-in MessageTransmitters must enable its address. */
  attesterKey: Hex;
  /** Source blocks after the burn before a Standard Transfer is complete (default 0). */
  confirmations?: number;
  /** Source blocks after the burn before a Fast Transfer is complete (default 0). */
  fastConfirmations?: number;
  /** Fast Transfer fee in basis points, an integer (default 1). */
  fastFeeBps?: number;
  /** Bound on every RPC read (default 5000 ms). */
  rpcTimeoutMs?: number;
  /** Failures behind a 5xx answer (RPC errors, bugs). */
  onError?: (err: unknown) => void;
}

export interface Attester {
  /** `http://127.0.0.1:<port>`: the base URL a client puts where it would put Circle's. */
  url: string;
  port: number;
  /** The address the stand-in signs with. */
  attester: Address;
  /**
   * Withholds attestations, as Circle's service does while it has not signed: the messages of the
   * burn of `txHash` (of every transaction, without it) are answered `pending_confirmations` with
   * `"PENDING"` for their attestation, however many blocks are on top, until released.
   */
  withhold(txHash?: Hex): void;
  /** Answers what `withhold(txHash)` held (without `txHash`: everything withheld, each hash and all). */
  release(txHash?: Hex): void;
  /** How many answers were withheld: for the transaction `txHash`, or in all. */
  withheld(txHash?: Hex): number;
  close(): Promise<void>;
}

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: CctpMessagesResponse | CctpErrorResponse,
  ) {}
}

const fail = (status: number, error: string) => new HttpAnswer(status, { error });
const TX_HASH = /^0x[0-9a-fA-F]{64}$/;
const NON_NEGATIVE = (name: string, v: number) => {
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${name} must be a whole number of at least 0`);
  return BigInt(v);
};

/**
 * A stand-in for Circle's attestation service (Iris) over local chains: `GET
 * /v2/messages/{sourceDomain}?transactionHash=0x…` reads the transaction's `MessageSent` logs of
 * the domain's MessageTransmitter, fills in what Circle fills in, signs keccak256(message) with
 * `attesterKey` and answers in Circle's wire format.
 */
export async function startAttester(opts: AttesterOptions): Promise<Attester> {
  const policy: AttestPolicy = {
    confirmations: NON_NEGATIVE('confirmations', opts.confirmations ?? 0),
    fastConfirmations: NON_NEGATIVE('fastConfirmations', opts.fastConfirmations ?? 0),
    fastFeeBps: NON_NEGATIVE('fastFeeBps', opts.fastFeeBps ?? 1),
  };
  const timeout = opts.rpcTimeoutMs ?? 5_000;
  const onError = opts.onError ?? (() => undefined);
  const domains = new Map<number, { client: PublicClient; transmitter: Address; messenger: Hex }>();
  for (const [id, d] of Object.entries(opts.domains)) {
    domains.set(Number(id), {
      client: createPublicClient({ transport: http(d.rpcUrl, { timeout, retryCount: 0 }) }),
      transmitter: getAddress(d.messageTransmitter),
      messenger: addressToBytes32(d.tokenMessenger),
    });
  }
  const attesterKey = opts.attesterKey;
  // What the test process told the stand-in to withhold, and how often it did, by lowercase hash.
  const held = { all: false, hashes: new Set<string>() };
  const withheldCount = new Map<string, number>();

  const messages = async (path: string, query: URLSearchParams): Promise<HttpAnswer> => {
    const raw = path.slice('/v2/messages/'.length);
    if (!/^\d{1,10}$/.test(raw)) return fail(400, 'Invalid source domain');
    const domain = domains.get(Number(raw));
    if (!domain) return fail(400, `Unsupported source domain ${raw}`);
    const txHash = query.get('transactionHash');
    if (txHash === null)
      return fail(
        400,
        query.has('nonce') ? 'Lookup by nonce is not supported here: give transactionHash' : 'transactionHash or nonce is required',
      );
    if (!TX_HASH.test(txHash)) return fail(400, 'Invalid transactionHash');
    let receipt;
    try {
      receipt = await domain.client.getTransactionReceipt({ hash: txHash as Hex });
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) return fail(404, 'Message not found');
      throw err;
    }
    const sent = parseEventLogs({ abi: CCTP_MESSAGE_TRANSMITTER_V2_ABI, eventName: 'MessageSent', logs: receipt.logs, strict: true })
      .filter((log) => isAddressEqual(log.address, domain.transmitter))
      .map((log) => ({ logIndex: log.logIndex, message: log.args.message }));
    if (sent.length === 0) return fail(404, 'Message not found');
    const head = await domain.client.getBlockNumber({ cacheTime: 0 });
    const key = receipt.transactionHash.toLowerCase();
    const withhold = held.all || held.hashes.has(key);
    if (withhold) withheldCount.set(key, (withheldCount.get(key) ?? 0) + 1);
    const answer = await attestMessages({
      sourceDomain: Number(raw),
      txHash: receipt.transactionHash,
      tokenMessenger: domain.messenger,
      txBlock: receipt.blockNumber,
      head,
      sent,
      policy,
      withhold,
      sign: (hash) => sign({ hash, privateKey: attesterKey, to: 'hex' }),
    });
    return new HttpAnswer(200, { messages: answer });
  };

  const route = async (req: IncomingMessage): Promise<HttpAnswer> => {
    const url = new URL(req.url ?? '/', 'http://attester');
    if (!url.pathname.startsWith('/v2/messages/')) return fail(404, 'Not found');
    if (req.method !== 'GET') return fail(405, 'Method not allowed');
    return messages(url.pathname, url.searchParams);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    route(req).then(
      (answer) => send(res, answer),
      (err: unknown) => {
        onError(err);
        // viem's errors are the RPC's (timeouts, refusals); anything else is ours.
        send(res, err instanceof BaseError ? fail(503, 'Source chain unavailable') : fail(500, 'Internal error'));
      },
    );
  });
  // Bounded: a client that stops half-way cannot hold a socket forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${opts.port} for the CCTP attester is already in use`) : err),
    );
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    attester: privateKeyToAddress(attesterKey),
    withhold(txHash) {
      if (txHash === undefined) held.all = true;
      else held.hashes.add(txHash.toLowerCase());
    },
    release(txHash) {
      if (txHash !== undefined) return void held.hashes.delete(txHash.toLowerCase());
      held.all = false;
      held.hashes.clear();
    },
    withheld(txHash) {
      if (txHash !== undefined) return withheldCount.get(txHash.toLowerCase()) ?? 0;
      return [...withheldCount.values()].reduce((a, b) => a + b, 0);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, answer: HttpAnswer): void {
  if (res.headersSent) return;
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
