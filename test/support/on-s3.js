// The 's3' jest project: this file's process.env is the test file's own copy, so only its suites store on S3.
process.env.TEST_STORAGE = 's3';
