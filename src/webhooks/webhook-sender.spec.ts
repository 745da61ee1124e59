import { blockedAddress, signature, urlProblem } from './webhook-sender';

describe('webhook addresses', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'fc12::3',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    'not-an-address',
  ])('refuses %s', (a) => expect(blockedAddress(a)).toBe(true));

  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])('allows %s', (a) =>
    expect(blockedAddress(a)).toBe(false),
  );

  it('refuses literal inside addresses in URLs unless allowed, and http unless allowed', () => {
    const strict = { allow: [], allowHttp: false };
    expect(urlProblem('https://[::1]/', strict)).toMatch(/loopback/);
    expect(urlProblem('https://10.1.2.3/', { allow: ['10.1.2.3'], allowHttp: false })).toBeNull();
    expect(urlProblem('http://example.com/', strict)).toMatch(/https/);
    expect(urlProblem('http://example.com/', { allow: [], allowHttp: true })).toBeNull();
    expect(urlProblem('file:///etc/passwd', { allow: [], allowHttp: true })).toMatch(/https/);
  });

  it('signs the timestamp and the body', () => {
    expect(signature('k', '1', 'b')).toBe(signature('k', '1', 'b'));
    expect(signature('k', '1', 'b')).not.toBe(signature('k', '2', 'b'));
    expect(signature('k', '1', 'b')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});
