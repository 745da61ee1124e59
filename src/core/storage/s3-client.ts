import { S3Client } from '@aws-sdk/client-s3';
import { S3Settings } from '../config/env';

/**
 * The SDK client for the configured bucket. Credentials are the configured pair when given, else the SDK's own
 * chain (AWS_PROFILE, web identity, instance or container roles). Checksums are computed only where the operation
 * requires one: the SDK's default (a CRC32 trailer on every upload since 3.729) is refused by some S3-compatible
 * servers, and S3 itself checks each part against its Content-MD5 or signature either way.
 */
export function s3Client(s3: Pick<S3Settings, 'endpoint' | 'region' | 'forcePathStyle' | 'credentials'>): S3Client {
  return new S3Client({
    region: s3.region,
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    forcePathStyle: s3.forcePathStyle,
    ...(s3.credentials ? { credentials: s3.credentials } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
}
