import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Helpers for the client's own specs (not exported from the package). */

/** A loopback server that answers with `handle` and records where each request came from and what it carried. */
export async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const seen: {
    from: string | undefined;
    method: string | undefined;
    url: string | undefined;
    headers: IncomingMessage['headers'];
    body: string;
  }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ from: req.socket.remoteAddress, method: req.method, url: req.url, headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    seen,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
