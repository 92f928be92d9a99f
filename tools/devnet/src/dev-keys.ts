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

/**
 * Account #5: the local filler's wallet, and the local routers' refunder and settler (immutables
 * every devnet router is deployed with): the system's filler sends fills, cancels, refunds and
 * claims from one operator wallet per chain. Under `devnet serve` (what `npm start` runs) it
 * delivers orders whose destination is a local chain; the devnet gives it gas and every dev token
 * and has it approve every router. `devnet refund` signs with it too. A real deployment names
 * operator keys of its own.
 */
export const DEV_FILLER_KEY: Hex = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
export const DEV_FILLER: Address = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';

/**
 * Account #3's address: the fee recipient of the local CCTP TokenMessengerV2 stand-ins (immutables),
 * which receives a Fast Transfer's fee on the destination chain. The stand-ins' attester signs with
 * DEV_CCTP_ATTESTER_KEY (tools/cctp-attester).
 */
export const DEV_CCTP_FEE_RECIPIENT: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
