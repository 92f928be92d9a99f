import type { Address, Hex } from 'viem';

/**
 * Anvil's public dev accounts that the local chains use. Every key here is published with anvil:
 * fine for a chain on this machine, never for real money.
 */

/** Accounts #7 and #8: the relayer's hot wallets when RELAYER_PRIVATE_KEYS is unset (the relayer's own default). */
export const DEV_RELAYER_KEYS: readonly Hex[] = [
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
];

/** Account #1's address: the partner-service signs vouchers with its key (DEV_VOUCHER_SIGNER_KEY) unless told otherwise. */
export const DEV_VOUCHER_SIGNER: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** Account #9's address: where the local gasless executors send fees, so they land somewhere anyone can inspect. */
export const DEV_FEE_RECIPIENT: Address = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720';
