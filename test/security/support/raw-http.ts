import * as http from 'node:http';

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Body bytes this client managed to hand to the socket before the reply came. */
  sent: number;
}

/**
 * POSTs a body produced piece by piece, stopping as soon as the server answers (as browsers and curl do), so a test
 * can send "2 GB" without holding it and see how much the server let through before refusing.
 */
export function streamPost(url: string, headers: Record<string, string>, body: Iterable<Buffer | string>): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed, sent });
        req.destroy();
      });
    });
    req.on('error', (e) => (answered ? undefined : reject(e)));
    const it = body[Symbol.iterator]();
    const pump = () => {
      for (;;) {
        if (answered || req.destroyed) return;
        const next = it.next();
        if (next.done) return void req.end();
        const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
    };
    pump();
  });
}

export const BOUNDARY = 'SecTestBoundary7f3a';
export const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

export function* field(name: string, value: string | { size: number; fill?: string }): Generator<Buffer | string> {
  yield `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`;
  if (typeof value === 'string') yield value;
  else yield* filler(value.size, value.fill ?? 'v');
  yield '\r\n';
}

export function* file(name: string, fileName: string, size: number): Generator<Buffer | string> {
  yield `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  yield* filler(size, 'f');
  yield '\r\n';
}

export function* end(): Generator<string> {
  yield `--${BOUNDARY}--\r\n`;
}

const CHUNK = 256 * 1024;
function* filler(size: number, ch: string): Generator<Buffer> {
  const block = Buffer.alloc(CHUNK, ch);
  for (let left = size; left > 0; left -= CHUNK) yield left >= CHUNK ? block : block.subarray(0, left);
}
