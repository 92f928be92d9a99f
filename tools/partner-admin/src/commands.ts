import {
  AdminAdjustFundingRpc,
  AdminCreateKeyRpc,
  AdminCreatePartnerRpc,
  AdminDisableKeyRpc,
  AdminIssueSessionRpc,
  AdminIssueVouchersRpc,
  AdminListFundingDepositsRpc,
  AdminSetKeyTierRpc,
  AdminShowPartnerRpc,
  type RpcContract,
  SettlementReportRpc,
} from '@xchain/contracts';
import type { z } from 'zod';

type Flags = Record<string, string>;
export interface Command {
  usage: string;
  contract: RpcContract<z.ZodType, z.ZodType>;
  request: (f: Flags) => unknown;
}

const int = (v: string | undefined) => (v === undefined ? undefined : Number(v));

/** Every operator action, as `partner-admin <name> --flag value …`. Requests are validated by the contract. */
export const COMMANDS: Record<string, Command> = {
  'create-partner': {
    usage: '--email E [--max-keys N]',
    contract: AdminCreatePartnerRpc,
    request: (f) => ({ email: f['email'], max_keys: int(f['max-keys']) }),
  },
  'issue-session': {
    usage: '--email E [--ttl-secs N]      (prints the bearer token once)',
    contract: AdminIssueSessionRpc,
    request: (f) => ({ email: f['email'], ttl_secs: int(f['ttl-secs']) }),
  },
  'create-key': {
    usage: '--email E --name NAME [--tier T]   (prints the API key once)',
    contract: AdminCreateKeyRpc,
    request: (f) => ({ email: f['email'], name: f['name'], tier: f['tier'] }),
  },
  'set-tier': {
    usage: '--key-id K --tier T [--points-per-min N]',
    contract: AdminSetKeyTierRpc,
    request: (f) => ({ key_id: f['key-id'], tier: f['tier'], points_per_min: int(f['points-per-min']) }),
  },
  credit: {
    usage: '--email E --usd-micros N --reason TEXT [--token ADDRESS --amount BASE_UNITS]',
    contract: AdminAdjustFundingRpc,
    request: (f) => ({
      email: f['email'],
      direction: 'credit',
      usd_micros: f['usd-micros'],
      reason: f['reason'],
      token: f['token'],
      amount: f['amount'],
    }),
  },
  debit: {
    usage: '--email E --usd-micros N --reason TEXT',
    contract: AdminAdjustFundingRpc,
    request: (f) => ({ email: f['email'], direction: 'debit', usd_micros: f['usd-micros'], reason: f['reason'] }),
  },
  settlement: {
    usage:
      '[--since RFC3339]          (inventory, reservations, open and stuck settlements, the oldest unsettled order, deposits = claims + refunds + open, stray Solana deposits by state and the stuck ones)',
    contract: SettlementReportRpc,
    request: (f) => ({ since: f['since'] }),
  },
  'show-partner': {
    usage: '--email E [--entries N]     (account, keys, balance, latest ledger entries)',
    contract: AdminShowPartnerRpc,
    request: (f) => ({ email: f['email'], entries: int(f['entries']) }),
  },
  'disable-key': {
    usage: '--key-id K',
    contract: AdminDisableKeyRpc,
    request: (f) => ({ key_id: f['key-id'] }),
  },
  'funding-deposits': {
    usage: '[--email E] [--status credited|unmatched] [--limit N]   (deposits seen on the funding router, newest first)',
    contract: AdminListFundingDepositsRpc,
    request: (f) => ({ email: f['email'], status: f['status'], limit: int(f['limit']) }),
  },
  'issue-vouchers': {
    usage: '--email E',
    contract: AdminIssueVouchersRpc,
    request: (f) => ({ email: f['email'] }),
  },
};

/** `--name value` pairs; a flag without a value or a stray word is an error. */
export function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]!;
    const value = args[i + 1];
    if (!name.startsWith('--') || value === undefined) throw new Error(`expected --flag value, got ${JSON.stringify(name)}`);
    flags[name.slice(2)] = value;
  }
  return flags;
}

/** Drops undefined fields so optional flags stay absent on the wire. */
export function compact(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}
