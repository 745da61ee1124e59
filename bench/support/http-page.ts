import * as http from 'node:http';

/**
 * The benches' HTTP client: node:http with keep-alive. fetch (undici) spends milliseconds of the bench's own process on
 * each page of a few hundred KiB (f=pbf as the SDK draws measured 12.6 ms a page through fetch and 9.1-10.9 ms through
 * this, in runs minutes apart), which every side would pay and which is not the server's.
 */
const pageAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** GETs `url`: the time to the body's last byte, and the body (only its length when `keep` is false). */
export function getPage(url: string, keep = true): Promise<{ ms: number; bytes: number; body: Buffer }> {
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: pageAgent }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (keep) chunks.push(chunk);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`${url}: HTTP ${res.statusCode}`));
          else resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, bytes, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}
