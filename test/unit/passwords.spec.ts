import { ArcgisError } from '../../src/core/errors/arcgis-error';
import { HashSlots, hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from '../../src/identity/passwords';

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

describe('password hashing limits', () => {
  it('refuses over-long passwords before hashing, in hashPassword and verifyPassword alike', async () => {
    const stored = await hashPassword('p'.repeat(MAX_PASSWORD_LENGTH));
    expect(await verifyPassword('p'.repeat(MAX_PASSWORD_LENGTH), stored)).toBe(true);
    await expect(hashPassword('p'.repeat(MAX_PASSWORD_LENGTH + 1))).rejects.toBeInstanceOf(ArcgisError);
    let hashed = false;
    await expect(verifyPassword('p'.repeat(50 * 1024 * 1024), stored, { before: async () => void (hashed = true) })).rejects.toMatchObject({
      code: 400,
      details: [`A password must be at most ${MAX_PASSWORD_LENGTH} characters.`],
    });
    expect(hashed).toBe(false);
  });

  it('runs at most `size` tasks at once, queues 32 per slot behind them and refuses beyond', async () => {
    const slots = new HashSlots(1, 1);
    slots.configure(2);
    let running = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const task = () =>
      slots.run(async () => {
        peak = Math.max(peak, ++running);
        await new Promise<void>((r) => gates.push(r));
        running--;
      });
    const accepted = Array.from({ length: 2 + 64 }, task);
    await new Promise((r) => setImmediate(r));
    await expect(task()).rejects.toMatchObject({
      code: 400,
      details: ['Too many password checks are in progress; try again in a few seconds.'],
    });
    while (gates.length) {
      gates.splice(0).forEach((open) => open());
      await new Promise((r) => setImmediate(r));
    }
    await Promise.all(accepted);
    expect(peak).toBe(2);
  });
});
