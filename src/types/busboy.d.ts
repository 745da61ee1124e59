// The part of busboy 1.6's API body.ts uses (busboy ships no types; @types/busboy would be one more download for this).
declare module 'busboy' {
  import type { IncomingHttpHeaders } from 'node:http';
  import type { Readable, Writable } from 'node:stream';

  namespace busboy {
    interface Limits {
      fieldNameSize?: number;
      fieldSize?: number;
      fields?: number;
      fileSize?: number;
      files?: number;
      parts?: number;
      headerPairs?: number;
    }
    interface Config {
      headers: IncomingHttpHeaders;
      limits?: Limits;
      defParamCharset?: string;
      highWaterMark?: number;
      fileHwm?: number;
    }
    interface FieldInfo {
      nameTruncated: boolean;
      valueTruncated: boolean;
      encoding: string;
      mimeType: string;
    }
    interface FileInfo {
      filename: string | undefined;
      encoding: string;
      mimeType: string;
    }
    interface Busboy extends Writable {
      on(event: 'field', listener: (name: string, value: string, info: FieldInfo) => void): this;
      on(event: 'file', listener: (name: string, stream: Readable & { truncated?: boolean }, info: FileInfo) => void): this;
      on(event: 'filesLimit' | 'fieldsLimit' | 'partsLimit' | 'close' | 'finish', listener: () => void): this;
      on(event: 'error', listener: (err: Error) => void): this;
    }
  }
  function busboy(config: busboy.Config): busboy.Busboy;
  export = busboy;
}
