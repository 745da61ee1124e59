// Preloaded (node -r) to run a process as if `npm ci --omit=dev` had installed node_modules: resolving into a package
// package-lock.json marks dev or devOptional (only there because a dev dependency, or an optional peer such as
// typeorm's ts-node, pulled it in) fails with MODULE_NOT_FOUND, exactly as an absent package would.
'use strict';
const Module = require('node:module');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const lock = require(path.join(root, 'package-lock.json'));
const devOnly = Object.entries(lock.packages)
  .filter(([dir, meta]) => dir && (meta.dev || meta.devOptional))
  .map(([dir]) => path.join(root, dir) + path.sep);

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const file = resolve.call(this, request, ...rest);
  if (devOnly.some((dir) => file.startsWith(dir))) {
    const e = new Error(`Cannot find module '${request}' (dev dependency, absent from a production install)`);
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  }
  return file;
};
