import { ConfigError, loadConfig } from './core/config/env';
import { errorForLog } from './core/logging/redact';
import { migrateDataDir } from './core/storage/migrate-data-dir';

/**
 * `npm run storage:migrate`: copies DATA_DIR's item files into the bucket STORAGE_URL names (with the same S3_* and
 * AWS_* variables the service uses), then reads every object's size back. Safe to run again (after an interruption,
 * or once more right before switching): files already copied are skipped. Exit code 0 only when every object checks.
 */
async function main() {
  const config = loadConfig();
  if (!config.storage.s3) throw new ConfigError('Set STORAGE_URL (s3://bucket/prefix) to the bucket to copy DATA_DIR into.');
  const { bucket, prefix } = config.storage.s3;
  console.log(`copying ${config.dataDir}/items to s3://${bucket}/${prefix}items`);
  const r = await migrateDataDir(config.dataDir, config.storage.s3, (line) => console.log(line));
  console.log(
    `${r.files} files (${r.bytes} bytes): ${r.copied} copied, ${r.skipped} already there; ${r.files - r.mismatched.length} verified`,
  );
  if (r.mismatched.length) {
    console.error(`size differs after the copy: ${r.mismatched.join(', ')}`);
    process.exit(2);
  }
}

main().catch((e) => {
  console.error(e instanceof ConfigError ? e.message : errorForLog(e));
  process.exit(1);
});
