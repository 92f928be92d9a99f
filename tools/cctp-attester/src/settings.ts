import { type Hex, isAddress, isHex, keccak256, stringToBytes } from 'viem';
import type { AttesterDomain, AttesterOptions } from './start-attester';

/** The local attester's key: public, for local chains only (its address is what the stand-in transmitters enable). */
export const DEV_CCTP_ATTESTER_KEY: Hex = keccak256(stringToBytes('xchain dev CCTP attester'));

const whole = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw new Error(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  return Number(raw);
};

/**
 * The attester's settings from the environment; fails on the first bad one.
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `CCTP_ATTESTER_DOMAINS` | JSON: `{"<domain>": {"rpcUrl", "messageTransmitter", "tokenMessenger"}}` | required |
 * | `CCTP_ATTESTER_PORT` | loopback port | 8790 |
 * | `CCTP_ATTESTER_KEY` | the attester's private key | `DEV_CCTP_ATTESTER_KEY` |
 * | `CCTP_ATTESTER_CONFIRMATIONS` | source blocks before a Standard Transfer is complete | 0 |
 * | `CCTP_ATTESTER_FAST_CONFIRMATIONS` | source blocks before a Fast Transfer is complete | 0 |
 * | `CCTP_ATTESTER_FAST_FEE_BPS` | Fast Transfer fee, basis points | 1 |
 * | `CCTP_ATTESTER_RPC_TIMEOUT_MS` | bound on each RPC read | 5000 |
 */
export function attesterSettings(env: NodeJS.ProcessEnv): AttesterOptions {
  const key = env['CCTP_ATTESTER_KEY'] || DEV_CCTP_ATTESTER_KEY;
  if (!isHex(key) || key.length !== 66) throw new Error('CCTP_ATTESTER_KEY must be a 32-byte hex private key');
  return {
    port: whole(env, 'CCTP_ATTESTER_PORT', 8790),
    domains: parseDomains(env['CCTP_ATTESTER_DOMAINS']),
    attesterKey: key,
    confirmations: whole(env, 'CCTP_ATTESTER_CONFIRMATIONS', 0),
    fastConfirmations: whole(env, 'CCTP_ATTESTER_FAST_CONFIRMATIONS', 0),
    fastFeeBps: whole(env, 'CCTP_ATTESTER_FAST_FEE_BPS', 1),
    rpcTimeoutMs: whole(env, 'CCTP_ATTESTER_RPC_TIMEOUT_MS', 5000),
  };
}

function parseDomains(raw: string | undefined): Record<number, AttesterDomain> {
  if (!raw) throw new Error('CCTP_ATTESTER_DOMAINS is required: {"<domain>": {"rpcUrl", "messageTransmitter", "tokenMessenger"}}');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('CCTP_ATTESTER_DOMAINS is not JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('CCTP_ATTESTER_DOMAINS must be a JSON object');
  const domains: Record<number, AttesterDomain> = {};
  for (const [id, d] of Object.entries(parsed as Record<string, unknown>)) {
    const v = (d ?? {}) as Partial<Record<keyof AttesterDomain, unknown>>;
    if (!/^\d{1,10}$/.test(id)) throw new Error(`CCTP_ATTESTER_DOMAINS: ${JSON.stringify(id)} is not a domain id`);
    if (typeof v.rpcUrl !== 'string' || !/^https?:\/\//.test(v.rpcUrl))
      throw new Error(`CCTP_ATTESTER_DOMAINS[${id}].rpcUrl must be an http(s) URL`);
    if (typeof v.messageTransmitter !== 'string' || !isAddress(v.messageTransmitter))
      throw new Error(`CCTP_ATTESTER_DOMAINS[${id}].messageTransmitter must be an address`);
    if (typeof v.tokenMessenger !== 'string' || !isAddress(v.tokenMessenger))
      throw new Error(`CCTP_ATTESTER_DOMAINS[${id}].tokenMessenger must be an address`);
    domains[Number(id)] = { rpcUrl: v.rpcUrl, messageTransmitter: v.messageTransmitter, tokenMessenger: v.tokenMessenger };
  }
  if (Object.keys(domains).length === 0) throw new Error('CCTP_ATTESTER_DOMAINS names no domain');
  return domains;
}
