/**
 * Preloaded (node -r) into the API the load benchmark starts: main.ts listens on PORT on every interface, and the
 * benchmark must stay on loopback, so a listen() given a port and no host gets 127.0.0.1. Nothing else changes.
 */
'use strict';
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && (args.length === 1 || typeof args[1] !== 'string')) args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
