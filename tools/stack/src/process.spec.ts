import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from './process';

describe('freePort', () => {
  // The range the kernel takes outgoing connections' local ports from.
  const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

  it('gives distinct ports outside the range outgoing connections draw from, each one bindable', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 40; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
    const port = ports[0]!;
    const srv = createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((r) => srv.close(r));
  });
});
