import type { FileHandle } from 'node:fs/promises';

/**
 * Writes all of data, at `position` or (null) where the file stands: one write() may write less (a full disk, a
 * file size limit), and the rest, or the error saying why not, comes from the next. A write that makes no progress
 * without an error is one too: never a silent hole, never a short file.
 */
export async function writeAll(handle: FileHandle, data: Buffer, position: number | null): Promise<void> {
  for (let done = 0; done < data.length;) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position === null ? null : position + done);
    if (bytesWritten === 0) throw new Error(`only ${done} of ${data.length} bytes could be written (is the disk full?)`);
    done += bytesWritten;
  }
}
