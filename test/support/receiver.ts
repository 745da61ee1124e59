import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A webhook receiver on loopback: records every request; `answer` decides each status (200 unless set; 0 holds it unanswered). */
export async function startReceiver() {
  const received: Received[] = [];
  let connections = 0;
  const r = {
    received,
    answer: (_req: Received): { status: number; headers?: Record<string, string>; body?: string } => ({ status: 200 }),
    port: 0,
    connections: () => connections,
    /** Deliveries only (the creation check has an empty events list). */
    events: () => received.filter((x) => x.json?.events?.length),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* not JSON */
      }
      const got = { path: req.url ?? '', headers: req.headers, body, json };
      received.push(got);
      const a = r.answer(got);
      if (a.status === 0) return; // held: never answered (a delivery in flight when its sender dies)
      res.writeHead(a.status, a.headers ?? { 'content-type': 'text/plain' });
      res.end(a.body ?? 'ok');
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  return r;
}
