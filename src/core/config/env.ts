import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, validateSync } from 'class-validator';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));

/** Environment as read at start-up. Every field has a default except the admin credentials. */
class EnvDto {
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/arcgis';

  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  @Transform(toInt)
  @IsInt({ message: 'PORT must be an integer' })
  @Min(1)
  @Max(65535)
  PORT = 3000;

  @IsString()
  @MinLength(1, { message: 'DATA_DIR must not be empty' })
  DATA_DIR = './data';

  /** Where item files live: unset keeps them under DATA_DIR; s3://bucket/prefix puts them in an S3-compatible bucket. */
  @IsOptional()
  @Matches(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[A-Za-z0-9!_.*'()/-]*)?$/, {
    message: 'STORAGE_URL must be s3://bucket or s3://bucket/prefix (bucket: 3-63 of a-z 0-9 . -)',
  })
  STORAGE_URL?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+\/?$/, { message: 'S3_ENDPOINT must be an http(s) URL without a path, like http://minio:9000' })
  S3_ENDPOINT?: string;

  @Matches(/^[a-z0-9-]{1,32}$/, { message: 'S3_REGION must be a region name like us-east-1' })
  S3_REGION = 'us-east-1';

  @IsIn(['true', 'false'], { message: 'S3_FORCE_PATH_STYLE must be true or false' })
  S3_FORCE_PATH_STYLE = 'false';

  @IsOptional()
  @Matches(/^\S{1,128}$/, { message: 'AWS_ACCESS_KEY_ID must be 1-128 characters without white space' })
  AWS_ACCESS_KEY_ID?: string;

  @IsOptional()
  @Matches(/^\S{1,1024}$/, { message: 'AWS_SECRET_ACCESS_KEY must be 1-1024 characters without white space' })
  AWS_SECRET_ACCESS_KEY?: string;

  @IsOptional()
  @Matches(/^\S{1,4096}$/, { message: 'AWS_SESSION_TOKEN must be at most 4096 characters without white space' })
  AWS_SESSION_TOKEN?: string;

  @Transform(toInt)
  @IsInt({ message: 'S3_PRESIGNED_DOWNLOAD_S must be an integer (seconds; 0 streams downloads through the API)' })
  @Min(0)
  @Max(604800)
  S3_PRESIGNED_DOWNLOAD_S = 0;

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+\/?$/, { message: 'S3_PUBLIC_ENDPOINT must be an http(s) URL without a path' })
  S3_PUBLIC_ENDPOINT?: string;

  @Transform(toInt)
  @IsInt({ message: 'STORAGE_SWEEP_INTERVAL_S must be an integer (seconds; 0 disables)' })
  @Min(0)
  @Max(604800)
  STORAGE_SWEEP_INTERVAL_S = 3600;

  @Matches(/^(\/[A-Za-z0-9._~-]+)*$/, { message: 'CONTEXT_PATH must be empty or like /portal (no trailing slash)' })
  CONTEXT_PATH = '';

  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'PUBLIC_URL must be an http(s) URL' })
  PUBLIC_URL?: string;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_.@-]{3,128}$/, { message: 'ADMIN_USERNAME must be 3-128 of A-Z a-z 0-9 _ . @ -' })
  ADMIN_USERNAME?: string;

  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'ADMIN_PASSWORD must be at least 8 characters' })
  @MaxLength(256, { message: 'ADMIN_PASSWORD must be at most 256 characters' })
  ADMIN_PASSWORD?: string;

  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  @Transform(toInt)
  @IsInt({ message: 'SHARE_MAX_ITEMS must be an integer' })
  @Min(1)
  @Max(100000)
  SHARE_MAX_ITEMS = 1000;

  @Transform(toInt)
  @IsInt({ message: 'SHARE_MAX_GROUPS must be an integer' })
  @Min(1)
  @Max(10000)
  SHARE_MAX_GROUPS = 100;

  /** Groups a user may belong to, owned ones included: ArcGIS's 512. */
  @Transform(toInt)
  @IsInt({ message: 'USER_MAX_GROUPS must be an integer' })
  @Min(1)
  @Max(100000)
  USER_MAX_GROUPS = 512;

  /** Users one addUsers, removeUsers, updateUsers or invite request may name: ArcGIS's 25 (the client sends batches of 25). */
  @Transform(toInt)
  @IsInt({ message: 'GROUP_USERS_PER_REQUEST must be an integer' })
  @Min(1)
  @Max(1000)
  GROUP_USERS_PER_REQUEST = 25;

  /** A thumbnail's largest size: an item's, a group's or a user's (ArcGIS's 1 MB). */
  @Transform(toInt)
  @IsInt({ message: 'THUMBNAIL_MAX_KB must be an integer' })
  @Min(1)
  @Max(10240)
  THUMBNAIL_MAX_KB = 1024;

  /** Groups one item may be shared with: an owner can share only to groups they belong to, so ArcGIS's 512 again. */
  @Transform(toInt)
  @IsInt({ message: 'ITEM_MAX_GROUPS must be an integer' })
  @Min(1)
  @Max(100000)
  ITEM_MAX_GROUPS = 512;

  @Transform(toInt)
  @IsInt({ message: 'TOKEN_MAX_MINUTES must be an integer' })
  @Min(1)
  TOKEN_MAX_MINUTES = 20160;

  @Transform(toInt)
  @IsInt({ message: 'TOKEN_PURGE_INTERVAL_S must be an integer (0 disables)' })
  @Min(0)
  @Max(86400)
  TOKEN_PURGE_INTERVAL_S = 600;

  @Transform(toInt)
  @IsInt({ message: 'SIGNIN_FREE_FAILURES must be an integer' })
  @Min(1)
  @Max(1000)
  SIGNIN_FREE_FAILURES = 5;

  @Transform(toInt)
  @IsInt({ message: 'SIGNIN_ADDRESS_FREE_FAILURES must be an integer' })
  @Min(1)
  @Max(1000000)
  SIGNIN_ADDRESS_FREE_FAILURES = 50;

  @Transform(toInt)
  @IsInt({ message: 'SIGNIN_USER_FREE_FAILURES must be an integer' })
  @Min(1)
  @Max(1000000)
  SIGNIN_USER_FREE_FAILURES = 200;

  @Transform(toInt)
  @IsInt({ message: 'SIGNIN_MAX_DELAY_S must be an integer' })
  @Min(1)
  @Max(86400)
  SIGNIN_MAX_DELAY_S = 900;

  @Transform(toInt)
  @IsInt({ message: 'PASSWORD_HASH_CONCURRENCY must be an integer' })
  @Min(1)
  @Max(64)
  PASSWORD_HASH_CONCURRENCY = 2;

  @Transform(toInt)
  @IsInt({ message: 'UPLOAD_MAX_MB must be an integer' })
  @Min(1)
  UPLOAD_MAX_MB = 2048;

  /** One item resource (addResources, updateResources): ArcGIS's 50 MB. */
  @Transform(toInt)
  @IsInt({ message: 'ITEM_RESOURCE_MAX_MB must be an integer' })
  @Min(1)
  @Max(102400)
  ITEM_RESOURCE_MAX_MB = 50;

  /** Resources one item may hold: ArcGIS's 1,000. */
  @Transform(toInt)
  @IsInt({ message: 'ITEM_MAX_RESOURCES must be an integer' })
  @Min(1)
  @Max(1000000)
  ITEM_MAX_RESOURCES = 1000;

  /** One info file (updateinfo, an update's metadata): ArcGIS's 100 KB. */
  @Transform(toInt)
  @IsInt({ message: 'ITEM_INFO_MAX_KB must be an integer' })
  @Min(1)
  @Max(1048576)
  ITEM_INFO_MAX_KB = 100;

  /** Info files one item may hold (`updateinfo`, an update's metadata); ArcGIS documents 20 a request and no total. */
  @Transform(toInt)
  @IsInt({ message: 'ITEM_MAX_INFO_FILES must be an integer' })
  @Min(2)
  @Max(100000)
  ITEM_MAX_INFO_FILES = 100;

  /** Tags of an item, its typeKeywords, a group's or a user's tags: ArcGIS's 128 a list. */
  @Transform(toInt)
  @IsInt({ message: 'TAGS_MAX_COUNT must be an integer' })
  @Min(1)
  @Max(10000)
  TAGS_MAX_COUNT = 128;

  /** One tag or type keyword: ArcGIS's 256 characters. */
  @Transform(toInt)
  @IsInt({ message: 'TAG_MAX_CHARS must be an integer' })
  @Min(1)
  @Max(4096)
  TAG_MAX_CHARS = 256;

  /** A user's app settings (`setProperties`) as JSON text, all keys together. */
  @Transform(toInt)
  @IsInt({ message: 'USER_PROPERTIES_MAX_KB must be an integer' })
  @Min(1)
  @Max(10 * 1024)
  USER_PROPERTIES_MAX_KB = 64;

  /** Built-in notifications kept per user: a new one beyond it removes the oldest. */
  @Transform(toInt)
  @IsInt({ message: 'NOTIFICATIONS_MAX_PER_USER must be an integer' })
  @Min(1)
  @Max(100000)
  NOTIFICATIONS_MAX_PER_USER = 1000;

  /** One feature attachment (addAttachment, updateAttachment, applyEdits): the file's bytes. */
  @Transform(toInt)
  @IsInt({ message: 'ATTACHMENT_MAX_MB must be an integer' })
  @Min(1)
  @Max(102400)
  ATTACHMENT_MAX_MB = 50;

  /** Attachments one feature may hold, and their bytes together. */
  @Transform(toInt)
  @IsInt({ message: 'ATTACHMENTS_PER_FEATURE must be an integer' })
  @Min(1)
  @Max(100000)
  ATTACHMENTS_PER_FEATURE = 100;

  @Transform(toInt)
  @IsInt({ message: 'ATTACHMENTS_FEATURE_MAX_MB must be an integer' })
  @Min(1)
  @Max(1048576)
  ATTACHMENTS_FEATURE_MAX_MB = 500;

  /** Attachments one layer may hold, and their bytes together. */
  @Transform(toInt)
  @IsInt({ message: 'ATTACHMENTS_PER_LAYER must be an integer' })
  @Min(1)
  @Max(100000000)
  ATTACHMENTS_PER_LAYER = 1000000;

  @Transform(toInt)
  @IsInt({ message: 'ATTACHMENTS_LAYER_MAX_GB must be an integer' })
  @Min(1)
  @Max(1048576)
  ATTACHMENTS_LAYER_MAX_GB = 100;
  /** Webhook hosts or addresses allowed although loopback, link-local, private or unique-local (comma-separated). */
  @Matches(/^[A-Za-z0-9.:[\],-]*$/, { message: 'WEBHOOK_ALLOW must be a comma-separated list of hosts or addresses' })
  WEBHOOK_ALLOW = '';

  /** Lets webhook payload URLs be http (development only). */
  @IsIn(['true', 'false'], { message: 'WEBHOOK_ALLOW_HTTP must be true or false' })
  WEBHOOK_ALLOW_HTTP = 'false';

  /** Days of webhook deliveries kept for notificationStatus. */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_HISTORY_DAYS must be an integer' })
  @Min(1)
  @Max(3650)
  WEBHOOK_HISTORY_DAYS = 30;

  /** How often a worker's dispatcher moves committed events to deliveries, in milliseconds (0: never). */
  @Transform(toInt)
  @IsInt({ message: 'WEBHOOK_DISPATCH_MS must be an integer' })
  @Min(0)
  @Max(60000)
  WEBHOOK_DISPATCH_MS = 250;

  @Transform(toInt)
  @IsInt({ message: 'MULTIPART_MAX_PARTS must be an integer (parts one multipart upload may have; ArcGIS numbers them 1-10000)' })
  @Min(1)
  @Max(10000)
  MULTIPART_MAX_PARTS = 10000;

  @Transform(toInt)
  @IsInt({ message: 'MULTIPART_PART_MAX_MB must be an integer (MiB one part may have)' })
  @Min(5)
  MULTIPART_PART_MAX_MB = 512;

  @Transform(toInt)
  @IsInt({ message: 'MULTIPART_MAX_MB must be an integer (MiB all parts of one upload may have together)' })
  @Min(1)
  MULTIPART_MAX_MB = 102400;

  // Below a day: the storage sweep aborts S3 multipart uploads older than a day (STAGING_GRACE_MS).
  @Transform(toInt)
  @IsInt({ message: 'MULTIPART_UPLOAD_TTL_H must be an integer (hours an upload has to commit)' })
  @Min(1)
  @Max(23)
  MULTIPART_UPLOAD_TTL_H = 12;

  @Transform(toInt)
  @IsInt({ message: 'UPLOAD_BEFORE_TOKEN_MB must be an integer' })
  @Min(0)
  UPLOAD_BEFORE_TOKEN_MB = 512;

  @Transform(toInt)
  @IsInt({ message: 'UPLOAD_IDLE_S must be an integer (seconds)' })
  @Min(1)
  @Max(300)
  UPLOAD_IDLE_S = 15;

  @Transform(toInt)
  @IsInt({ message: 'BODY_MAX_MB must be an integer' })
  @Min(1)
  @Max(1024)
  BODY_MAX_MB = 10;

  @Transform(toInt)
  @IsInt({ message: 'BODY_MAX_FIELDS must be an integer' })
  @Min(10)
  @Max(100000)
  BODY_MAX_FIELDS = 100;

  @Transform(toInt)
  @IsInt({ message: 'BODY_BUFFER_MB must be an integer' })
  @Min(1)
  BODY_BUFFER_MB = 16;

  /** Express's 'trust proxy': which hops' X-Forwarded-For to believe (token binding and throttling use the address). */
  // `true` is refused: it trusts every hop, so the left-most X-Forwarded-For entry, which the client writes, would
  // become the address that token binding and throttling rely on.
  @Matches(/^(?!true$)(\d{1,2}|false|[A-Za-z0-9.:/]+(\s*,\s*[A-Za-z0-9.:/]+)*)$/, {
    message:
      'TRUST_PROXY must be a hop count, false, or comma-separated addresses/subnets/loopback/linklocal/uniquelocal (not true: clients could then choose their address)',
  })
  TRUST_PROXY = 'loopback';

  @IsOptional()
  @Matches(/^\s*https?:\/\/[A-Za-z0-9.\-[\]:]+\s*(,\s*https?:\/\/[A-Za-z0-9.\-[\]:]+\s*)*$/, {
    message:
      'CORS_CREDENTIAL_ORIGINS must be comma-separated origins like https://app.example.org (scheme, host, optional port; no path, no *)',
  })
  CORS_CREDENTIAL_ORIGINS?: string;

  @Transform(toInt)
  @IsInt({ message: 'WORKER_CONCURRENCY must be an integer' })
  @Min(1)
  @Max(64)
  WORKER_CONCURRENCY = 1;

  @Transform(toInt)
  @IsInt({ message: 'EXPORT_ZIP_LEVEL must be an integer' })
  @Min(0)
  @Max(9)
  EXPORT_ZIP_LEVEL = 1;

  @Transform(toInt)
  @IsInt({ message: 'PUBLISH_MAX_UNPACKED_MB must be an integer (MiB a zipped upload may unpack to)' })
  @Min(1)
  PUBLISH_MAX_UNPACKED_MB = 10240;

  @Transform(toInt)
  @IsInt({ message: 'PUBLISH_MAX_FEATURES must be an integer (features one publish may load)' })
  @Min(1)
  PUBLISH_MAX_FEATURES = 20000000;

  @Transform(toInt)
  @IsInt({ message: 'JOB_LOCK_MS must be an integer' })
  @Min(1000)
  @Max(600000)
  JOB_LOCK_MS = 30000;

  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'QUEUE_PREFIX must be 1-64 of A-Z a-z 0-9 _ -' })
  QUEUE_PREFIX = 'arcgis';

  @Transform(toInt)
  @IsInt({ message: 'WORKER_HEARTBEAT_TTL_S must be an integer (seconds)' })
  @Min(3)
  @Max(3600)
  WORKER_HEARTBEAT_TTL_S = 15;

  // Sent as `Authorization: Bearer <token>`, so no white space; 32 characters so it cannot be guessed.
  @IsOptional()
  @Matches(/^\S{32,1024}$/, { message: 'METRICS_TOKEN must be 32-1024 characters without white space' })
  METRICS_TOKEN?: string;

  @Transform(toInt)
  @IsInt({ message: 'QUERY_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(3600000)
  QUERY_TIMEOUT_MS = 30000;

  @Transform(toInt)
  @IsInt({ message: 'QUERY_POOL_SIZE must be an integer' })
  @Min(1)
  @Max(100)
  QUERY_POOL_SIZE = 5;

  @Transform(toInt)
  @IsInt({ message: 'QUERY_CLIENT_SHARE must be an integer (feature-pool connections one client may hold)' })
  @Min(1)
  @Max(100)
  QUERY_CLIENT_SHARE = 2;

  @Transform(toInt)
  @IsInt({
    message: 'CACHE_MAX_AGE_S must be an integer (seconds a shared cache may serve anonymous query replies; 0: revalidate each time)',
  })
  @Min(0)
  @Max(86400)
  CACHE_MAX_AGE_S = 0;

  @Transform(toInt)
  @IsInt({ message: 'SEARCH_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(3600000)
  SEARCH_TIMEOUT_MS = 10000;

  @Transform(toInt)
  @IsInt({ message: 'SEARCH_POOL_SIZE must be an integer' })
  @Min(1)
  @Max(100)
  SEARCH_POOL_SIZE = 4;

  @Transform(toInt)
  @IsInt({ message: 'SEARCH_CLIENT_SHARE must be an integer (search-pool connections one client may hold)' })
  @Min(1)
  @Max(100)
  SEARCH_CLIENT_SHARE = 1;

  @Transform(toInt)
  @IsInt({ message: 'AUTH_POOL_SIZE must be an integer' })
  @Min(2)
  @Max(100)
  AUTH_POOL_SIZE = 4;

  @Transform(toInt)
  @IsInt({ message: 'GEOMETRY_MAX_VERTICES must be an integer' })
  @Min(4)
  GEOMETRY_MAX_VERTICES = 1_000_000;

  @Transform(toInt)
  @IsInt({ message: 'GEOMETRY_MAX_PARTS must be an integer' })
  @Min(1)
  GEOMETRY_MAX_PARTS = 100_000;

  @Transform(toInt)
  @IsInt({ message: 'GEOMETRY_MAX_REQUEST_VERTICES must be an integer' })
  @Min(4)
  GEOMETRY_MAX_REQUEST_VERTICES = 4_000_000;

  @Transform(toInt)
  @IsInt({ message: 'GEOMETRY_TIMEOUT_MS must be an integer' })
  @Min(100)
  @Max(3600000)
  GEOMETRY_TIMEOUT_MS = 30000;
}

/** An S3-compatible bucket for item files (STORAGE_URL=s3://...). */
export interface S3Settings {
  bucket: string;
  /** '' or ending in '/': every key of this deployment starts with it. */
  prefix: string;
  /** Unset: AWS's own endpoint for the region. */
  endpoint?: string;
  region: string;
  /** bucket in the path (MinIO, Ceph, s3rver) rather than in the host name. */
  forcePathStyle: boolean;
  /** Unset: the SDK's default chain (profile, web identity, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** 0: downloads stream through the API; else clients are redirected to a URL signed for this many seconds. */
  presignedDownloadS: number;
  /** The endpoint clients reach, for signed URLs, when it differs from the one the processes use. */
  publicEndpoint?: string;
}

export interface AppConfig {
  databaseUrl: string;
  redisUrl: string;
  port: number;
  /** Local scratch space of this process (upload spooling, job workDirs) and, without STORAGE_URL, the item files. */
  dataDir: string;
  /** Item files: under dataDir unless s3 is set; swept every sweepIntervalS (0: never). */
  storage: { s3?: S3Settings; sweepIntervalS: number };
  contextPath: string;
  /** Base of the ArcGIS REST API, e.g. /portal/sharing/rest. */
  restBase: string;
  /** Set when PUBLIC_URL is; otherwise URLs are built from each request's Host (see publicRoot). */
  publicUrl?: string;
  admin?: { username: string; password: string };
  logLevel: EnvDto['LOG_LEVEL'];
  /** Jobs one worker process runs at once; GDAL work is CPU-bound, so about one per core. */
  workerConcurrency: number;
  /** Redis key prefix of the queues, so several deployments (or test runs) can share one Redis. */
  queuePrefix: string;
  /** How long a job's lock lives without renewal: a killed worker's job is handed on after about this long. */
  jobLockMs: number;
  /** A worker counts as alive this long after its last heartbeat; it beats every third of it. */
  workerHeartbeatTtlS: number;
  /** A bearer token that may read /metrics besides full administrators (Prometheus); unset, only administrators. */
  metricsToken?: string;
  /** Deflate level of zipped exports: 0 stores (fastest, largest), 1 (default) is nearly as small as 6 at half the time. */
  exportZipLevel: number;
  /** Publishing bounds: bytes a zipped upload may unpack to, and features one publish may load (all layers). */
  publish: { maxUnpackedBytes: number; maxFeatures: number };
  limits: {
    shareMaxItems: number;
    shareMaxGroups: number;
    userMaxGroups: number;
    groupUsersPerRequest: number;
    thumbnailMaxBytes: number;
    itemMaxGroups: number;
    tokenMaxMinutes: number;
    uploadMaxBytes: number;
    /** Item resources and info files (content/item-files.ts): bytes per file, and resources per item. */
    itemResourceMaxBytes: number;
    itemMaxResources: number;
    itemInfoMaxBytes: number;
    itemMaxInfoFiles: number;
    /** Values of one tag list (tags, typeKeywords) and characters of one value (core/http/tag-list.ts). */
    tagsMaxCount: number;
    tagMaxChars: number;
    userPropertiesMaxChars: number;
    notificationsPerUser: number;
  };
  /**
   * Multipart uploads (addPart): the highest part number, bytes per part and per upload, and the hours an upload has
   * between addItem and commit before its parts are swept and its item fails.
   */
  multipart: { maxParts: number; partMaxBytes: number; maxBytes: number; ttlMs: number };
  /** Feature attachments: bytes per file, count and bytes per feature, count and bytes per layer. */
  attachments: { maxBytes: number; perFeature: number; featureMaxBytes: number; perLayer: number; layerMaxBytes: number };
  /** Organisation webhooks: hosts allowed despite their address, http allowed, history kept, dispatch interval. */
  webhooks: { allow: string[]; allowHttp: boolean; historyDays: number; dispatchMs: number };
  /** Request bodies and CORS (core/http/body.ts, core/http/cors.ts). */
  http: {
    /** A non-multipart body, or the non-file fields of a multipart body together. */
    bodyMaxBytes: number;
    bodyMaxFields: number;
    /** Body bytes held in memory at once by the whole process; a body that does not fit waits unread. */
    bodyBufferBytes: number;
    /** File bytes spooled at once, across requests, before the request's token was seen (0: none). */
    uploadBeforeTokenBytes: number;
    /** A body whose sender is not known yet is refused after this many seconds without a byte. */
    uploadIdleS: number;
    /** Lower-case origins that may send credentials (cookies); every other origin gets CORS without them. */
    corsCredentialOrigins: string[];
    /** Express's 'trust proxy' value: a hop count, false, or addresses and subnets. */
    trustProxy: number | false | string;
  };
  /** How often an API process deletes expired tokens (0: never). */
  tokenPurgeIntervalS: number;
  /** Sign-in throttle: failures allowed per (user, address), per address and per user before delays of 2^k s start. */
  signin: { freeFailures: number; addressFreeFailures: number; userFreeFailures: number; maxDelayS: number; hashConcurrency: number };
  /**
   * Feature queries and edits: their own connection pool, each statement cut after timeoutMs (API process only); one
   * client holds at most clientShare of its connections.
   */
  query: {
    timeoutMs: number;
    poolSize: number;
    clientShare: number;
    /** Seconds a cache may serve an anonymous query reply of a service whose cacheMaxAge is unset (0: revalidate). */
    cacheMaxAgeS: number;
  };
  /** Searches, content listings and pages: their own pool, each statement cut after timeoutMs (API process only). */
  search: { timeoutMs: number; poolSize: number; clientShare: number };
  /** Sign-in, token checks and /health: a pool no other work uses (API process only). */
  auth: { poolSize: number };
  /** Bounds on ArcGIS JSON geometry in edits, which is converted on worker threads within timeoutMs. */
  geometry: { maxVertices: number; maxParts: number; maxRequestVertices: number; timeoutMs: number };
}

export class ConfigError extends Error {}

/** Validates the environment; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const defined = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const dto = plainToInstance(EnvDto, defined, { exposeDefaultValues: true });
  const errors = validateSync(dto, { forbidUnknownValues: false });
  if (errors.length) {
    const lines = errors.map((e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (!!dto.ADMIN_USERNAME !== !!dto.ADMIN_PASSWORD) {
    throw new ConfigError('Invalid configuration:\n  ADMIN_USERNAME and ADMIN_PASSWORD must be set together');
  }
  // A share as large as its pool would let one client hold every connection: a share that is set must leave one for
  // the others; the default is cut to fit a small pool instead.
  for (const [share, pool] of [
    ['QUERY_CLIENT_SHARE', 'QUERY_POOL_SIZE'],
    ['SEARCH_CLIENT_SHARE', 'SEARCH_POOL_SIZE'],
  ] as const) {
    if (dto[share] < dto[pool] || dto[pool] === 1) continue;
    if (defined[share] !== undefined) {
      throw new ConfigError(
        `Invalid configuration:\n  ${share} must be less than ${pool} (${dto[pool]}), so one client cannot hold every connection`,
      );
    }
    dto[share] = dto[pool] - 1;
  }
  if (!!dto.AWS_ACCESS_KEY_ID !== !!dto.AWS_SECRET_ACCESS_KEY) {
    throw new ConfigError('Invalid configuration:\n  AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together');
  }
  return {
    databaseUrl: dto.DATABASE_URL,
    redisUrl: dto.REDIS_URL,
    port: dto.PORT,
    dataDir: dto.DATA_DIR,
    storage: { s3: s3Settings(dto), sweepIntervalS: dto.STORAGE_SWEEP_INTERVAL_S },
    contextPath: dto.CONTEXT_PATH,
    restBase: `${dto.CONTEXT_PATH}/sharing/rest`,
    publicUrl: dto.PUBLIC_URL?.replace(/\/+$/, ''),
    admin: dto.ADMIN_USERNAME ? { username: dto.ADMIN_USERNAME, password: dto.ADMIN_PASSWORD! } : undefined,
    logLevel: dto.LOG_LEVEL,
    workerConcurrency: dto.WORKER_CONCURRENCY,
    queuePrefix: dto.QUEUE_PREFIX,
    jobLockMs: dto.JOB_LOCK_MS,
    workerHeartbeatTtlS: dto.WORKER_HEARTBEAT_TTL_S,
    metricsToken: dto.METRICS_TOKEN,
    exportZipLevel: dto.EXPORT_ZIP_LEVEL,
    http: {
      bodyMaxBytes: dto.BODY_MAX_MB * 1024 * 1024,
      bodyMaxFields: dto.BODY_MAX_FIELDS,
      bodyBufferBytes: Math.max(dto.BODY_BUFFER_MB, dto.BODY_MAX_MB) * 1024 * 1024,
      uploadBeforeTokenBytes: Math.min(dto.UPLOAD_BEFORE_TOKEN_MB, dto.UPLOAD_MAX_MB) * 1024 * 1024,
      uploadIdleS: dto.UPLOAD_IDLE_S,
      corsCredentialOrigins: (dto.CORS_CREDENTIAL_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim().toLowerCase())
        .filter(Boolean),
      trustProxy: /^\d+$/.test(dto.TRUST_PROXY) ? Number(dto.TRUST_PROXY) : dto.TRUST_PROXY === 'false' ? false : dto.TRUST_PROXY,
    },
    publish: { maxUnpackedBytes: dto.PUBLISH_MAX_UNPACKED_MB * 1024 * 1024, maxFeatures: dto.PUBLISH_MAX_FEATURES },
    query: {
      timeoutMs: dto.QUERY_TIMEOUT_MS,
      poolSize: dto.QUERY_POOL_SIZE,
      clientShare: dto.QUERY_CLIENT_SHARE,
      cacheMaxAgeS: dto.CACHE_MAX_AGE_S,
    },
    search: { timeoutMs: dto.SEARCH_TIMEOUT_MS, poolSize: dto.SEARCH_POOL_SIZE, clientShare: dto.SEARCH_CLIENT_SHARE },
    auth: { poolSize: dto.AUTH_POOL_SIZE },
    geometry: {
      maxVertices: dto.GEOMETRY_MAX_VERTICES,
      maxParts: dto.GEOMETRY_MAX_PARTS,
      maxRequestVertices: dto.GEOMETRY_MAX_REQUEST_VERTICES,
      timeoutMs: dto.GEOMETRY_TIMEOUT_MS,
    },
    limits: {
      shareMaxItems: dto.SHARE_MAX_ITEMS,
      shareMaxGroups: dto.SHARE_MAX_GROUPS,
      userMaxGroups: dto.USER_MAX_GROUPS,
      groupUsersPerRequest: dto.GROUP_USERS_PER_REQUEST,
      thumbnailMaxBytes: dto.THUMBNAIL_MAX_KB * 1024,
      itemMaxGroups: dto.ITEM_MAX_GROUPS,
      tokenMaxMinutes: dto.TOKEN_MAX_MINUTES,
      uploadMaxBytes: dto.UPLOAD_MAX_MB * 1024 * 1024,
      itemResourceMaxBytes: dto.ITEM_RESOURCE_MAX_MB * 1024 * 1024,
      itemMaxResources: dto.ITEM_MAX_RESOURCES,
      itemInfoMaxBytes: dto.ITEM_INFO_MAX_KB * 1024,
      itemMaxInfoFiles: dto.ITEM_MAX_INFO_FILES,
      tagsMaxCount: dto.TAGS_MAX_COUNT,
      tagMaxChars: dto.TAG_MAX_CHARS,
      userPropertiesMaxChars: dto.USER_PROPERTIES_MAX_KB * 1024,
      notificationsPerUser: dto.NOTIFICATIONS_MAX_PER_USER,
    },
    webhooks: {
      allow: dto.WEBHOOK_ALLOW.split(',')
        .map((h) =>
          h
            .trim()
            .toLowerCase()
            .replace(/^\[(.*)\]$/, '$1'),
        )
        .filter(Boolean),
      allowHttp: dto.WEBHOOK_ALLOW_HTTP === 'true',
      historyDays: dto.WEBHOOK_HISTORY_DAYS,
      dispatchMs: dto.WEBHOOK_DISPATCH_MS,
    },
    multipart: {
      maxParts: dto.MULTIPART_MAX_PARTS,
      partMaxBytes: dto.MULTIPART_PART_MAX_MB * 1024 * 1024,
      maxBytes: dto.MULTIPART_MAX_MB * 1024 * 1024,
      ttlMs: dto.MULTIPART_UPLOAD_TTL_H * 3600_000,
    },
    attachments: {
      maxBytes: dto.ATTACHMENT_MAX_MB * 1024 * 1024,
      perFeature: dto.ATTACHMENTS_PER_FEATURE,
      featureMaxBytes: dto.ATTACHMENTS_FEATURE_MAX_MB * 1024 * 1024,
      perLayer: dto.ATTACHMENTS_PER_LAYER,
      layerMaxBytes: dto.ATTACHMENTS_LAYER_MAX_GB * 1024 * 1024 * 1024,
    },
    tokenPurgeIntervalS: dto.TOKEN_PURGE_INTERVAL_S,
    signin: {
      freeFailures: dto.SIGNIN_FREE_FAILURES,
      addressFreeFailures: dto.SIGNIN_ADDRESS_FREE_FAILURES,
      userFreeFailures: dto.SIGNIN_USER_FREE_FAILURES,
      maxDelayS: dto.SIGNIN_MAX_DELAY_S,
      hashConcurrency: dto.PASSWORD_HASH_CONCURRENCY,
    },
  };
}

function s3Settings(dto: EnvDto): S3Settings | undefined {
  if (!dto.STORAGE_URL) return undefined;
  const [, bucket, prefix = ''] = /^s3:\/\/([^/]+)\/?(.*)$/.exec(dto.STORAGE_URL)!;
  return {
    bucket,
    prefix: prefix.replace(/\/+$/, '') ? `${prefix.replace(/\/+$/, '')}/` : '',
    endpoint: dto.S3_ENDPOINT?.replace(/\/$/, ''),
    region: dto.S3_REGION,
    forcePathStyle: dto.S3_FORCE_PATH_STYLE === 'true',
    credentials: dto.AWS_ACCESS_KEY_ID
      ? { accessKeyId: dto.AWS_ACCESS_KEY_ID, secretAccessKey: dto.AWS_SECRET_ACCESS_KEY!, sessionToken: dto.AWS_SESSION_TOKEN }
      : undefined,
    presignedDownloadS: dto.S3_PRESIGNED_DOWNLOAD_S,
    publicEndpoint: dto.S3_PUBLIC_ENDPOINT?.replace(/\/$/, ''),
  };
}
