import ipaddr from 'ipaddr.js';

/**
 * The network a per-client limit counts: IPv4 as it is (IPv4-mapped IPv6 included), IPv6 by its /64, since one
 * subscriber is routed a whole /64 and could otherwise take a fresh address for every request. Anything that is not an
 * address is returned as it is. ipaddr.js (already behind Express's proxy-addr) parses the forms IPv6 may take.
 */
export function clientNetwork(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip);
  if (addr.kind() !== 'ipv6') return addr.toString();
  return `${(addr as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`;
}
