/**
 * PostgreSQL's COPY as a byte pump: each row of the query is one already formatted piece of the output file (a CSV
 * line, a GeoJSON feature), and the file is those pieces back to back.
 *
 * The COPY runs in binary format, whose framing is lengths, not escapes: the text format would escape every
 * backslash, tab and newline inside the pieces (a quoted CSV value may hold a newline), and undoing that means
 * scanning every byte. Here each row costs a length read and a copy.
 *
 * The reader takes the connection's socket from node-postgres for the length of the COPY and parses the protocol's
 * messages and the binary rows inside them in one loop, instead of pg-copy-streams' `to()` (one BufferList pass per
 * CopyData message, in JavaScript) followed by a second pass over the rows. Node's CPU is taken straight from the
 * backends formatting the rows on the same two cores: this reader takes about a third of the CPU pg-copy-streams
 * and a row parser behind it took (README.md).
 */
import { open } from 'node:fs/promises';
import { connect, Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { Client, Connection, Submittable } from 'pg';
import { writeAll } from '../write-all';
import { cancelKeyOf, sendQuery, wireOf } from './pg-wire';

/**
 * Bytes passed on at a time. The socket delivers what the backend has sent so far, often a few kilobytes, and a
 * file write per such piece cost more than the export's formatting in Node.
 */
export const OUT_CHUNK = 1 << 20;
/**
 * Pieces kept for reuse by the readers of a document or of a GeoPackage's index entries (until dropSparePieces): two
 * for each session writing (the consumer holds one while its reader fills the next) and one for appending a range's
 * file. A reader of its own spares allocated two or more pieces, and with a dozen ranges an export, that external
 * memory kept V8 marking its whole heap in the worker.
 */
const SPARE_PIECES = 6;
const spares: Buffer[] = [];

/** Lets the spare pieces go when a document is written, so that an idle worker holds none. */
export function dropSparePieces(): void {
  spares.length = 0;
}

/** A piece of OUT_CHUNK bytes to fill, a spare one when there is one. */
export function takePiece(): Buffer {
  return spares.pop() ?? Buffer.allocUnsafe(OUT_CHUNK);
}

/**
 * Gives back a piece from takePiece (or passed on by a reader) once nothing reads it any more: it is overwritten. In the
 * worker, a new buffer per piece made V8 collect its whole heap again and again for their memory.
 */
export function givePiece(piece: Buffer): void {
  const whole = piece.byteOffset === 0 && piece.buffer.byteLength === OUT_CHUNK;
  if (whole && spares.length < SPARE_PIECES && !spares.some((s) => s.buffer === piece.buffer)) {
    spares.push(Buffer.from(piece.buffer, 0, OUT_CHUNK));
  }
}
/**
 * A read shorter than SHORT_READ (and than the longest so far: a TLS socket's never exceed 16 KB) means the
 * backend's output has been read up to date: the socket then rests for READ_REST_MS, so that the next reads come
 * back full (64 KB) instead of with the backend's last 8 KB send: a quarter of the reads and half the CPU, and the
 * wall time does not grow, the kernel's socket buffers holding the rows meanwhile (README.md).
 */
const SHORT_READ = 32 * 1024;
const READ_REST_MS = 4;

/** Where a socket made by directReadSocket hands its reads while a reader owns it. */
const DIRECT = Symbol('copy-rows direct reads');
type DirectSocket = Socket & { [DIRECT]?: ((chunk: Buffer) => void) | null };
/** One socket read at most (Node's own reads are 64 KiB too). */
const READ_BUFFER = 64 * 1024;

/**
 * A socket for node-postgres (its `stream` option) that reads into one buffer of its own, again and again, instead
 * of a new buffer per read: while a CopyRowsReader owns it, the reads go to the reader, which copies out what it
 * keeps; otherwise each read is copied and given to node-postgres as a 'data' event. Every new buffer Node made per
 * read counted as external memory, and in the worker V8 answered that with full collections of its heap (README.md).
 * Not for TLS, whose socket must read as usual.
 */
export function directReadSocket(): Socket {
  const buffer = Buffer.allocUnsafe(READ_BUFFER);
  const socket: DirectSocket = new Socket({
    onread: {
      buffer,
      // Only a `false` return pauses the socket; these reads never ask for that.
      callback: (n: number) => {
        const view = buffer.subarray(0, n);
        const direct = socket[DIRECT];
        if (direct) direct(view);
        else socket.emit('data', Buffer.from(view));
        return true;
      },
    },
  });
  socket[DIRECT] = null;
  return socket;
}

/** "PGCOPY\n\377\r\n\0", then a 32-bit flags field and a 32-bit header extension length. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const FILE_HEADER = SIGNATURE.length + 8;

/** Backend message codes. */
const COPY_DATA = 0x64; // d
const COPY_DONE = 0x63; // c
const COPY_OUT_RESPONSE = 0x48; // H
const ERROR_RESPONSE = 0x45; // E
const NOTICE_RESPONSE = 0x4e; // N
const PARAMETER_STATUS = 0x53; // S
const NOTIFICATION_RESPONSE = 0x41; // A

/** Where the reader is in the protocol: at a message's first byte, in its code and length, in its body. */
const AT_MESSAGE = 0;
const IN_HEADER = 1;
const IN_COPY_DATA = 2;
/** In a message node-postgres reads (a notice...): gathered whole, then handed to its parser. */
const IN_OTHER = 3;

/** Where the reader is in the binary COPY format carried by the CopyData messages. */
const FILE_HEAD = 0;
const EXTENSION = 1;
const ROW_HEAD = 2;
const ROW_DATA = 3;
const ENDED = 4;

/** What parse() returns when the chunk has been read, or when the connection had to be closed. */
const READING = -1;
const CLOSED = -2;

export interface CopyRowsOptions {
  /** Bytes cut from the front of the first row: the separator a row carries for the row before it. */
  skipFirst?: number;
  /** Called with the rows read so far, about every `every` rows. */
  onRows?: (rows: number) => void;
  every?: number;
  /** The rest after a short read (see READ_REST_MS); 0 reads as the bytes come. */
  restMs?: number;
}

/**
 * `COPY (query) TO STDOUT (FORMAT binary)` of a query selecting one text or bytea column, as a stream of the
 * column's bytes concatenated (a NULL adds nothing) in pieces of OUT_CHUNK, so that a huge row (a polygon with a
 * million vertices) is never held whole. `rows` counts the rows read. A database error ends the stream with
 * PostgreSQL's error, and the client stays usable; destroying the stream (an abort) cancels the query and the
 * client is usable again once the backend has stopped.
 */
export class CopyRowsReader extends Readable implements Submittable {
  rows = 0;
  private skipFirst: number;
  private readonly onRows?: (rows: number) => void;
  private readonly reportEvery: number;
  private reported = 0;
  private readonly restMs: number;

  /** The socket while this reader owns it, and node-postgres's own listener, given back after the COPY. */
  private socket?: Connection['stream'];
  private pgOnData?: (chunk: Buffer) => void;

  private at = AT_MESSAGE;
  private readonly head = Buffer.alloc(5);
  private headLength = 0;
  /** Bytes of the current message's body still to come. */
  private bodyLeft = 0;
  private other = Buffer.alloc(0);
  private otherLength = 0;

  private part = FILE_HEAD;
  /** Bytes of the file header or of a row header read so far. */
  private readonly scratch = Buffer.alloc(FILE_HEADER);
  private scratchLength = 0;
  /** Bytes of the current row's value (or of the header extension) still to come. */
  private valueLeft = 0;

  /** The piece being filled, and how much of it is. */
  private out: Buffer = takePiece();
  private outLength = 0;

  private copyDone = false;
  private counted?: number;
  private wantsMore = true;
  private resting?: NodeJS.Timeout;
  private largestRead = 0;
  /** The socket reads into one buffer (directReadSocket): what is kept of a read must be copied. */
  directReads = false;
  /** Destroyed mid-COPY: the rest of the COPY is read and dropped until the backend has stopped. */
  private discarding = false;
  /** The cancel request on its way, and what node-postgres gets once it has arrived. */
  private cancelling?: Promise<void>;
  private handBack?: Buffer;

  constructor(
    private readonly client: Client,
    readonly text: string,
    o: CopyRowsOptions = {},
  ) {
    super();
    this.skipFirst = o.skipFirst ?? 0;
    this.reportEvery = o.every ?? 50_000;
    this.onRows = o.onRows;
    this.restMs = o.restMs ?? READ_REST_MS;
  }

  /** Called by node-postgres when the query's turn comes; an Error returned fails the query without sending it. */
  submit(connection: Connection): Error | void {
    if (this.destroyed) return new Error('COPY: cancelled before it started');
    const wire = wireOf(connection);
    if (wire instanceof Error) return wire;
    const { socket } = wire;
    this.pgOnData = wire.pgOnData;
    this.socket = socket;
    this.directReads = DIRECT in socket;
    if (this.directReads) (socket as DirectSocket)[DIRECT] = this.onData;
    else {
      socket.removeListener('data', this.pgOnData);
      socket.on('data', this.onData);
    }
    sendQuery(connection, this.text);
  }

  handleCommandComplete(msg: { text?: string }): void {
    const m = /^COPY (\d+)/.exec(msg.text ?? '');
    if (m) this.counted = Number(m[1]);
  }

  handleReadyForQuery(): void {
    if (this.destroyed) return;
    if (!this.copyDone) return void this.destroy(new Error('COPY: the query ended without sending its rows'));
    if (this.counted !== undefined && this.counted !== this.rows) {
      return void this.destroy(new Error(`COPY: read ${this.rows} rows of the ${this.counted} PostgreSQL sent`));
    }
    this.push(null);
  }

  /** PostgreSQL's error (handed to node-postgres's parser), or the connection's end. */
  handleError(err: Error): void {
    if (this.socket) this.giveBack();
    this.destroy(err);
  }

  override _read(): void {
    this.wantsMore = true;
    this.flow();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.out = Buffer.alloc(0);
    this.outLength = 0;
    if (this.socket && !this.copyDone) {
      this.discarding = true;
      this.cancel();
      this.flow();
    }
    done(err);
  }

  private readonly onData = (chunk: Buffer): void => {
    const from = this.parse(chunk);
    if (from >= 0) return this.handOff(chunk, from);
    if (from === CLOSED) return;
    if (this.onRows && this.rows - this.reported >= this.reportEvery && !this.destroyed) {
      this.reported = this.rows;
      try {
        this.onRows(this.rows);
      } catch (e) {
        this.destroy(e as Error);
      }
    }
    // The socket rests after a short read, and while the consumer has enough.
    const largest = (this.largestRead = Math.max(this.largestRead, chunk.length));
    if (this.restMs > 0 && !this.resting && chunk.length < Math.min(SHORT_READ, largest)) {
      this.resting = setTimeout(this.wake, this.restMs);
    }
    if (this.resting || !(this.wantsMore || this.discarding)) this.socket?.pause();
  };

  private readonly wake = (): void => {
    this.resting = undefined;
    this.flow();
  };

  private flow(): void {
    if (this.socket && !this.resting && this.handBack === undefined && (this.wantsMore || this.discarding)) this.socket.resume();
  }

  /**
   * Reads one chunk from the socket. Returns READING, CLOSED, or the offset from which node-postgres's parser takes
   * over: the CopyDone message has been read, or an ErrorResponse begins there.
   */
  private parse(buf: Buffer): number {
    const n = buf.length;
    let p = 0;
    while (p < n) {
      if (this.at === AT_MESSAGE) {
        if (this.part === ROW_HEAD && this.scratchLength === 0 && this.skipFirst === 0 && !this.discarding) {
          p = this.rowRun(buf, p);
          if (p === n) break;
        }
        const code = buf[p];
        if (code === ERROR_RESPONSE) return p;
        if (
          code !== COPY_DATA &&
          code !== COPY_DONE &&
          code !== COPY_OUT_RESPONSE &&
          code !== NOTICE_RESPONSE &&
          code !== PARAMETER_STATUS &&
          code !== NOTIFICATION_RESPONSE
        ) {
          return this.protocolError(`unexpected message '${String.fromCharCode(code)}'`);
        }
        this.at = IN_HEADER;
        this.headLength = 0;
      }
      if (this.at === IN_HEADER) {
        const take = Math.min(5 - this.headLength, n - p);
        buf.copy(this.head, this.headLength, p, p + take);
        this.headLength += take;
        p += take;
        if (this.headLength < 5) break;
        const code = this.head[0];
        this.bodyLeft = this.head.readUInt32BE(1) - 4;
        if (this.bodyLeft < 0) return this.protocolError('message length below 4');
        if (code === COPY_DONE) {
          this.at = AT_MESSAGE;
          this.finish();
          return p;
        }
        if (code === COPY_DATA) this.at = IN_COPY_DATA;
        else {
          this.at = IN_OTHER;
          this.other = Buffer.allocUnsafe(5 + this.bodyLeft);
          this.head.copy(this.other);
          this.otherLength = 5;
        }
      }
      const end = Math.min(n, p + this.bodyLeft);
      if (this.at === IN_COPY_DATA) {
        if (!this.discarding) this.copyBytes(buf, p, end);
      } else {
        buf.copy(this.other, this.otherLength, p, end);
        this.otherLength += end - p;
      }
      this.bodyLeft -= end - p;
      p = end;
      if (this.bodyLeft === 0) {
        if (this.at === IN_OTHER) {
          // Notices and the like between the rows go to node-postgres, which reports them as usual.
          this.pgOnData!(this.other);
          this.other = Buffer.alloc(0);
        }
        this.at = AT_MESSAGE;
      }
    }
    return READING;
  }

  /**
   * The common case, at a message's start: CopyData messages lying whole in the chunk, each holding one whole row,
   * as PostgreSQL sends them. They are copied into the piece in one go and their headers squeezed out in place: a
   * Buffer copy per row out of the received chunk cost more than twice as much (it allocates a view per call).
   * Returns where the run stops.
   */
  private rowRun(buf: Buffer, p: number): number {
    const n = buf.length;
    let room = OUT_CHUNK - this.outLength;
    let q = p;
    let rows = 0;
    while (q + 11 <= n && buf[q] === COPY_DATA) {
      const size = 1 + ((buf[q + 1] << 24) | (buf[q + 2] << 16) | (buf[q + 3] << 8) | buf[q + 4]);
      const fields = (buf[q + 5] << 8) | buf[q + 6];
      const length = (buf[q + 7] << 24) | (buf[q + 8] << 16) | (buf[q + 9] << 8) | buf[q + 10];
      if (fields !== 1 || length < -1 || size !== 11 + Math.max(length, 0) || q + size > n) break;
      if (q - p + size > room) {
        // A row larger than a whole piece is passed on by copyBytes, a piece at a time.
        if (q > p || this.outLength === 0 || size > OUT_CHUNK) break;
        this.flushOut();
        // The consumer may have given up on the stream when handed the piece.
        if (this.discarding) return p;
        room = OUT_CHUNK;
      }
      q += size;
      rows++;
    }
    if (q === p) return p;
    const out = this.out;
    let r = this.outLength;
    let w = r;
    const end = r + (q - p);
    buf.copy(out, r, p, q);
    while (r < end) {
      const length = (out[r + 7] << 24) | (out[r + 8] << 16) | (out[r + 9] << 8) | out[r + 10];
      if (length > 0) {
        out.copyWithin(w, r + 11, r + 11 + length);
        w += length;
        r += 11 + length;
      } else r += 11;
    }
    this.outLength = w;
    this.rows += rows;
    return q;
  }

  /** The binary COPY format in buf[s, e), a piece of a CopyData message's body cut anywhere. */
  private copyBytes(buf: Buffer, s: number, e: number): void {
    while (s < e && !this.discarding) {
      switch (this.part) {
        case ROW_DATA: {
          const end = Math.min(e, s + this.valueLeft);
          const cut = Math.min(this.skipFirst, end - s);
          this.skipFirst -= cut;
          this.passOn(buf, s + cut, end);
          this.valueLeft -= end - s;
          s = end;
          if (this.valueLeft === 0) this.part = ROW_HEAD;
          break;
        }
        case ROW_HEAD: {
          s = this.gather(buf, s, e, 2);
          if (this.scratchLength < 2) return;
          if (this.scratch.readInt16BE(0) === -1) {
            this.part = ENDED;
            this.scratchLength = 0;
            break;
          }
          s = this.gather(buf, s, e, 6);
          if (this.scratchLength < 6) return;
          this.scratchLength = 0;
          const fields = this.scratch.readInt16BE(0);
          const length = this.scratch.readInt32BE(2);
          if (fields !== 1) return this.fail(`COPY: expected one column per row, got ${fields}`);
          if (length < -1) return this.fail(`COPY: a value of length ${length}`);
          // Only the first row gives up its separator.
          if (++this.rows > 1) this.skipFirst = 0;
          this.valueLeft = Math.max(length, 0);
          if (this.valueLeft > 0) this.part = ROW_DATA;
          break;
        }
        case FILE_HEAD: {
          const before = this.scratchLength;
          s = this.gather(buf, s, e, FILE_HEADER);
          const checked = Math.min(this.scratchLength, SIGNATURE.length);
          if (before < checked && !this.scratch.subarray(before, checked).equals(SIGNATURE.subarray(before, checked))) {
            return this.fail('COPY: not a binary COPY stream');
          }
          if (this.scratchLength < FILE_HEADER) return;
          this.scratchLength = 0;
          this.valueLeft = this.scratch.readUInt32BE(SIGNATURE.length + 4);
          this.part = this.valueLeft > 0 ? EXTENSION : ROW_HEAD;
          break;
        }
        case EXTENSION: {
          const take = Math.min(e - s, this.valueLeft);
          s += take;
          this.valueLeft -= take;
          if (this.valueLeft === 0) this.part = ROW_HEAD;
          break;
        }
        default:
          return this.fail('COPY: data after the end of the stream');
      }
    }
  }

  /** Moves bytes into `scratch` until it holds `upTo`; returns the new position. */
  private gather(buf: Buffer, s: number, e: number, upTo: number): number {
    const take = Math.min(upTo - this.scratchLength, e - s);
    if (take <= 0) return s;
    buf.copy(this.scratch, this.scratchLength, s, s + take);
    this.scratchLength += take;
    return s + take;
  }

  /** Copies buf[start, end) into the pieces, passing each on once full. */
  private passOn(buf: Buffer, start: number, end: number): void {
    while (start < end) {
      const n = buf.copy(this.out, this.outLength, start, end);
      this.outLength += n;
      start += n;
      if (this.outLength === OUT_CHUNK) this.flushOut();
      if (this.discarding) return;
    }
  }

  private flushOut(last = false): void {
    if (this.outLength === 0) {
      // Nothing left to pass on: the empty piece goes back.
      if (last) {
        givePiece(this.out);
        this.out = Buffer.alloc(0);
      }
      return;
    }
    const piece = this.outLength === OUT_CHUNK ? this.out : this.out.subarray(0, this.outLength);
    this.out = last ? Buffer.alloc(0) : takePiece();
    this.outLength = 0;
    if (!this.push(piece)) this.wantsMore = false;
  }

  /** CopyDone: the rows are all here (the stream ends at ReadyForQuery, after PostgreSQL's count). */
  private finish(): void {
    this.copyDone = true;
    if (this.discarding) return;
    if (this.part !== ENDED || this.at !== AT_MESSAGE) return this.fail('COPY: the stream ended in the middle of a row');
    this.flushOut(true);
  }

  private fail(message: string): void {
    this.destroy(new Error(message));
  }

  /** A message this reader cannot place: the connection cannot be trusted any more, and is closed. */
  private protocolError(what: string): number {
    const err = new Error(`COPY: ${what} from the server`);
    this.socket!.destroy(err);
    this.handleError(err);
    return CLOSED;
  }

  /** node-postgres reads the socket again from buf[from]: at once, or once the cancel request has arrived. */
  private handOff(buf: Buffer, from: number): void {
    const rest = this.directReads ? Buffer.from(buf.subarray(from)) : buf.subarray(from);
    if (this.cancelling) {
      this.handBack = rest;
      this.socket!.pause();
      return;
    }
    this.giveBack();
    if (rest.length) this.pgOnData!(rest);
  }

  private giveBack(): void {
    const socket = this.socket!;
    clearTimeout(this.resting);
    this.resting = undefined;
    this.handBack = undefined;
    if (this.directReads) (socket as DirectSocket)[DIRECT] = null;
    else {
      socket.removeListener('data', this.onData);
      socket.on('data', this.pgOnData!);
    }
    socket.resume();
    this.socket = undefined;
  }

  /**
   * Asks PostgreSQL to cancel the COPY (a CancelRequest on a connection of its own). The socket goes back to
   * node-postgres only once that connection has closed, that is once the backend has been signalled: a signal
   * arriving after the next query had started would cancel that query instead.
   */
  private cancel(): void {
    const key = cancelKeyOf(this.client);
    if (this.cancelling || !key) return;
    const { host, port, processID, secretKey } = key;
    this.cancelling = new Promise<void>((resolve) => {
      const socket = host?.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
      const done = () => {
        socket.destroy();
        resolve();
      };
      socket.setTimeout(5000, done);
      socket.on('error', done);
      socket.on('close', done);
      socket.on('connect', () => {
        const request = Buffer.alloc(16);
        request.writeInt32BE(16, 0);
        request.writeInt32BE(80877102, 4);
        request.writeInt32BE(processID, 8);
        request.writeInt32BE(secretKey, 12);
        socket.end(request);
      });
    }).then(() => {
      this.cancelling = undefined;
      const rest = this.handBack;
      if (rest === undefined || !this.socket) return;
      this.giveBack();
      if (rest.length) this.pgOnData!(rest);
    });
  }
}

/** Starts the query's binary COPY on the client (see CopyRowsReader). */
export function copyRows(client: Client, query: string, o: CopyRowsOptions = {}): CopyRowsReader {
  return client.query(new CopyRowsReader(client, `COPY (${query}) TO STDOUT (FORMAT binary)`, o));
}

export interface CopyToFileOptions extends CopyRowsOptions {
  /** Append to the file instead of replacing it. */
  append?: boolean;
  signal?: AbortSignal;
}

/**
 * Runs the query's binary COPY, the query selecting one text column, and writes the pieces into path. Resolves with
 * the row count.
 */
export async function copyQueryToFile(client: Client, query: string, path: string, o: CopyToFileOptions = {}): Promise<number> {
  o.signal?.throwIfAborted();
  const file = await open(path, o.append ? 'a' : 'w');
  const rows = copyRows(client, query, o);
  const abort = () => rows.destroy(o.signal!.reason as Error);
  o.signal?.addEventListener('abort', abort, { once: true });
  try {
    // Each piece is written before the next is taken, then filled again (givePiece).
    for await (const piece of rows as AsyncIterable<Buffer>) {
      await writeAll(file, piece, null);
      givePiece(piece);
    }
    o.signal?.throwIfAborted();
    return rows.rows;
  } catch (e) {
    rows.destroy();
    throw o.signal?.aborted ? o.signal.reason : e;
  } finally {
    o.signal?.removeEventListener('abort', abort);
    await file.close();
  }
}
