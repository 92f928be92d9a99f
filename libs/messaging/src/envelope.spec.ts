import { errorEnvelope, okEnvelope, okPayloadBytes } from './envelope';

const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString());

describe('okPayloadBytes: the ok payload of a reply, unparsed', () => {
  it.each([{ a: 1, b: ['x', { c: null }] }, 'a "quoted" string', 0, null, []])('is exactly the JSON of %j', (value) => {
    expect(text(okPayloadBytes(okEnvelope(value)))).toBe(JSON.stringify(value));
  });

  it('is undefined for an error reply and anything not in the ok shape', () => {
    expect(okPayloadBytes(errorEnvelope({ code: 5, message: 'not found', details: [] }))).toBeUndefined();
    for (const raw of ['', '{}', '{"ok":', '{"ok":}', ' {"ok":1}', '{"ok":1} ', '{"okay":1}', '{"ok":1']) {
      expect(okPayloadBytes(Buffer.from(raw))).toBeUndefined();
    }
  });
});
