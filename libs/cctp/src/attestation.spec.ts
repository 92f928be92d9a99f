import { getAddress } from 'viem';
import { CCTP_V2_MESSAGE_TRANSMITTER, CCTP_V2_TOKEN_MESSENGER, cctpDomainOf } from './addresses';
import { CctpErrorResponseSchema, CctpMessagesResponseSchema } from './attestation';

const nonce = `0x${'ab'.repeat(32)}`;
const complete = {
  message: '0x0000000100000006',
  eventNonce: nonce,
  attestation: `0x${'11'.repeat(65)}`,
  decodedMessage: {
    sourceDomain: '6',
    destinationDomain: '3',
    nonce,
    sender: CCTP_V2_TOKEN_MESSENGER,
    recipient: CCTP_V2_TOKEN_MESSENGER,
    destinationCaller: '0x0000000000000000000000000000000000000000',
    minFinalityThreshold: '1000',
    finalityThresholdExecuted: '1000',
    messageBody: '0x00000001',
    decodedMessageBody: {
      burnToken: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      mintRecipient: `0x${'cd'.repeat(32)}`, // not an EVM account: the whole word
      amount: '250000000',
      messageSender: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      maxFee: '100000',
      feeExecuted: '25000',
      expirationBlock: '0',
      hookData: '0x',
    },
  },
  cctpVersion: 2,
  status: 'complete',
};

describe("the attestation API's answer", () => {
  it('takes a complete message as served, and a pending one with whatever it shows before signing', () => {
    const pending = {
      message: '0x',
      eventNonce: '',
      attestation: 'PENDING',
      cctpVersion: 2,
      status: 'pending_confirmations',
      delayReason: null,
    };
    const parsed = CctpMessagesResponseSchema.parse({ messages: [complete, pending] });
    expect(parsed.messages).toEqual([complete, pending]);
    const [m] = parsed.messages;
    if (m?.status !== 'complete') throw new Error('expected the complete message first');
    expect(m.decodedMessage.decodedMessageBody?.amount).toBe('250000000');
    // A reason for a delay comes through; fields this side does not know are dropped.
    const delayed = CctpMessagesResponseSchema.parse({ messages: [{ ...complete, delayReason: 'insufficient_fee', extra: 1 }] });
    expect(delayed.messages[0]).toEqual({ ...complete, delayReason: 'insufficient_fee' });
    expect(CctpErrorResponseSchema.parse({ error: 'Message not found' })).toEqual({ error: 'Message not found' });
  });

  it('refuses a complete message it could not hand to receiveMessage', () => {
    const bad = (patch: Record<string, unknown>) => () => CctpMessagesResponseSchema.parse({ messages: [{ ...complete, ...patch }] });
    expect(bad({ attestation: 'PENDING' })).toThrow();
    expect(bad({ attestation: `0x${'11'.repeat(64)}` })).toThrow(/65-byte/);
    expect(bad({ message: '0x' })).toThrow(/not empty/);
    expect(bad({ message: 'deadbeef' })).toThrow(/hex/);
    expect(bad({ eventNonce: '0x01' })).toThrow(/bytes32/);
    expect(bad({ decodedMessage: null })).toThrow();
    expect(bad({ decodedMessage: { ...complete.decodedMessage, sourceDomain: 6 } })).toThrow();
    expect(bad({ status: 'done' })).toThrow();
    expect(() => CctpMessagesResponseSchema.parse({})).toThrow();
  });
});

describe('the CCTP V2 addresses and domains', () => {
  it('names the mainnet contracts by checksummed address, one per contract on every EVM chain', () => {
    expect(getAddress(CCTP_V2_TOKEN_MESSENGER)).toBe(CCTP_V2_TOKEN_MESSENGER);
    expect(getAddress(CCTP_V2_MESSAGE_TRANSMITTER)).toBe(CCTP_V2_MESSAGE_TRANSMITTER);
    expect(CCTP_V2_TOKEN_MESSENGER).not.toBe(CCTP_V2_MESSAGE_TRANSMITTER);
  });

  it("gives a registry chain's domain, and none to a chain CCTP does not serve", () => {
    expect(['ethereum', 'avalanche', 'optimism', 'arbitrum', 'base', 'polygon'].map(cctpDomainOf)).toEqual([0, 1, 2, 3, 6, 7]);
    expect(cctpDomainOf('bsc')).toBeUndefined();
    expect(cctpDomainOf('toString')).toBeUndefined();
  });
});
