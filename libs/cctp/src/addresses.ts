import type { Address } from 'viem';
import { CCTP_DOMAINS, type CctpChain } from './cctp';

/**
 * Circle's CCTP V2 contracts on mainnet: TokenMessengerV2 and MessageTransmitterV2 have one address
 * on every EVM chain (CREATE2 proxies), per developers.circle.com, CCTP "EVM smart contracts" /
 * "Contract addresses" (mainnet tables). The local chains place the stand-ins at these same addresses.
 */
export const CCTP_V2_TOKEN_MESSENGER: Address = '0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d';
export const CCTP_V2_MESSAGE_TRANSMITTER: Address = '0x81D40F21F12A8F0E3252Bccb954D722d4c464B64';

/** The CCTP domain of a registry chain name, or undefined when CCTP does not serve it (e.g. bsc). */
export function cctpDomainOf(chain: string): number | undefined {
  return Object.hasOwn(CCTP_DOMAINS, chain) ? CCTP_DOMAINS[chain as CctpChain] : undefined;
}
