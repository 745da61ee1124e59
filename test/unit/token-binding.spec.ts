/** The matching rules behind token binding (token-binding.ts), case by case; tokens.spec.ts drives them over HTTP. */
import { clientNetwork } from '../../src/core/http/client-network';
import { bindingMatches, canonicalIp, refererMatches } from '../../src/identity/token-binding';

describe('canonicalIp', () => {
  it.each([
    ['10.1.2.3', '10.1.2.3'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['::FFFF:0a01:0203', '10.1.2.3'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8::1', '2001:db8::1'],
    ['::1', '::1'],
  ])('%s -> %s', (ip, want) => expect(canonicalIp(ip)).toBe(want));

  it.each([undefined, '', 'localhost', '10.1.2', '010.1.2.3', 'fe80::1%eth0', '1.2.3.4/8', '[::1]'])('%s is no address', (ip) =>
    expect(canonicalIp(ip)).toBeNull(),
  );
});

describe('refererMatches', () => {
  it.each([
    ['https://app.example.org', 'https://app.example.org/', true],
    ['https://app.example.org/maps/', 'https://app.example.org/', true],
    ['https://APP.example.org', 'https://app.example.org/other/page?q=1', true],
    ['https://app.example.org:443', 'https://app.example.org/', true],
    ['https://app.example.org', 'http://app.example.org/', false],
    ['https://app.example.org', 'https://app.example.org:8443/', false],
    ['https://app.example.org', 'https://app.example.org.evil.example/', false],
    ['https://app.example.org', 'https://evil.example/?https://app.example.org', false],
    ['app.example.org', 'https://app.example.org/x', true],
    ['app.example.org', 'http://app.example.org/x', true],
    ['app.example.org', 'https://sub.app.example.org/x', false],
    ['@esri/arcgis-rest-js', '@esri/arcgis-rest-js', true],
    ['@esri/arcgis-rest-js', '@esri/arcgis-rest-js/evil', false],
    ['cli', 'CLI', false],
    ['cli', undefined, false],
    ['https://app.example.org', undefined, false],
  ])('token %s, Referer %s -> %s', (bound, header, want) => expect(refererMatches(bound, header)).toBe(want));
});

describe('bindingMatches', () => {
  it('fails closed on a missing binding or address', () => {
    expect(bindingMatches('requestip', '10.1.2.3', { ip: '::ffff:10.1.2.3' })).toBe(true);
    expect(bindingMatches('requestip', '10.1.2.3', { ip: '10.1.2.4' })).toBe(false);
    expect(bindingMatches('ip', null, { ip: '10.1.2.3' })).toBe(false);
    expect(bindingMatches('requestip', '10.1.2.3', {})).toBe(false);
    expect(bindingMatches('referer', null, { referer: 'x' })).toBe(false);
  });
});

describe('clientNetwork', () => {
  it.each([
    ['10.1.2.3', '10.1.2.3'],
    ['unknown', 'unknown'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s', (ip, want) => expect(clientNetwork(ip)).toBe(want));
});
