/**
 * The one place that relies on node-postgres's internals, for the COPY reader that takes over a connection's socket
 * (copy-rows.ts): pg has no public way to read a COPY's bytes without its parser in between. What is relied on here is
 * checked against a real connection by test/e2e/export-pg-wire.spec.ts, so an upgrade of pg that changes it fails there.
 */
import type { Socket } from 'node:net';
import type { Client, ClientConfig, Connection } from 'pg';

/** A connection's socket while a reader owns it, and node-postgres's own reader of it (its one 'data' listener). */
export interface PgWire {
  socket: Connection['stream'];
  pgOnData: (chunk: Buffer) => void;
}

/** The connection's socket and node-postgres's listener on it, or an Error when the connection is not as expected. */
export function wireOf(connection: Connection): PgWire | Error {
  const socket = connection.stream;
  const listeners = socket.listeners('data');
  if (listeners.length !== 1) return new Error(`COPY: the connection's socket has ${listeners.length} data listeners, not 1`);
  return { socket, pgOnData: listeners[0] as (chunk: Buffer) => void };
}

/** Sends a simple Query message; the replies come on the socket. */
export function sendQuery(connection: Connection, text: string): void {
  connection.query(text);
}

/** What a CancelRequest for the client's backend needs. */
export interface CancelKey {
  host?: string;
  port: number;
  processID: number;
  secretKey: number;
}

/** The client's backend key (from BackendKeyData) and where it connected, or null before the key arrived. */
export function cancelKeyOf(client: Client): CancelKey | null {
  const { host, port, processID, secretKey } = client as Client & { processID: number | null; secretKey: number | null };
  if (processID === null || processID === undefined || secretKey === null || secretKey === undefined) return null;
  return { host, port, processID, secretKey };
}

/** The `stream` option making each connection's socket: node-postgres calls it with its resolved settings. */
export function socketMaker(make: (tls: boolean) => Socket): ClientConfig['stream'] {
  return ((config: { ssl?: unknown }) => make(!!config.ssl)) as unknown as ClientConfig['stream'];
}
