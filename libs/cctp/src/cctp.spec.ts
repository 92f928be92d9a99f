import { type Hex, size } from 'viem';
import {
  type CctpBurnBody,
  type CctpMessage,
  addressToBytes32,
  bytes32ToAddress,
  decodeCctpBurnBody,
  decodeCctpMessage,
  encodeCctpBurnBody,
  encodeCctpMessage,
} from './cctp';

const word = (byte: string): Hex => `0x${byte.repeat(32)}`;

describe('the CCTP V2 message codec', () => {
  const body: CctpBurnBody = {
    version: 1,
    burnToken: addressToBytes32('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
    mintRecipient: word('ab'),
    amount: 2n ** 200n + 7n,
    messageSender: word('cd'),
    maxFee: 500n,
    feeExecuted: 12n,
    expirationBlock: 0n,
    hookData: '0xdeadbeef',
  };
  const message: CctpMessage = {
    version: 1,
    sourceDomain: 6,
    destinationDomain: 3,
    nonce: word('11'),
    sender: word('22'),
    recipient: word('33'),
    destinationCaller: word('00'),
    minFinalityThreshold: 1000,
    finalityThresholdExecuted: 2000,
    messageBody: encodeCctpBurnBody(body),
  };

  it('puts every field at its V2 offset and reads it back', () => {
    const bytes = encodeCctpMessage(message);
    expect(size(bytes)).toBe(148 + 228 + 4);
    // version, source domain, destination domain, then the nonce at byte 12
    expect(bytes.slice(0, 2 + 24 * 2)).toBe(`0x${'00000001'}${'00000006'}${'00000003'}${'11'.repeat(12)}`);
    // minFinalityThreshold and finalityThresholdExecuted at bytes 140 and 144
    expect(bytes.slice(2 + 140 * 2, 2 + 148 * 2)).toBe('000003e8000007d0');
    expect(decodeCctpMessage(bytes)).toEqual(message);
    expect(decodeCctpBurnBody(decodeCctpMessage(bytes).messageBody)).toEqual(body);
  });

  it('reads an empty hook data and body as 0x and refuses short input', () => {
    expect(decodeCctpBurnBody(encodeCctpBurnBody({ ...body, hookData: '0x' })).hookData).toBe('0x');
    expect(decodeCctpMessage(encodeCctpMessage({ ...message, messageBody: '0x' })).messageBody).toBe('0x');
    expect(() => decodeCctpMessage('0x00')).toThrow(/148 bytes/);
    expect(() => decodeCctpBurnBody(word('00'))).toThrow(/228 bytes/);
    expect(() => encodeCctpMessage({ ...message, sourceDomain: -1 })).toThrow(/uint32/);
  });

  it('turns an EVM address into a word and back, and no other word', () => {
    const address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    expect(addressToBytes32(address)).toBe(`0x${'0'.repeat(24)}${address.slice(2).toLowerCase()}`);
    expect(bytes32ToAddress(addressToBytes32(address))).toBe(address);
    expect(bytes32ToAddress(word('ab'))).toBeUndefined();
  });
});
