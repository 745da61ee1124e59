import { hashPassword, verifyPassword } from '../../src/identity/passwords';

describe('password hashing', () => {
  it('verifies the right password only, with a fresh salt per hash', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).not.toBe(b);
    expect(a.startsWith('scrypt$32768$8$1$')).toBe(true);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsE', a)).toBe(false);
    expect(await verifyPassword('correct horse', 'plain$text')).toBe(false);
  });
});
