import { Caller } from '../../src/core/auth/caller';
import { KnownLayer, KnownLayers } from '../../src/layers/known-layers';
import { LayerRow, ServiceRow } from '../../src/layers/types';

const caller = (userId: string): Caller => ({ userId, username: userId, orgId: 'org', role: 'org_user', roleId: null, privileges: [] });

const entry = (stamp: string): KnownLayer => ({ service: {} as ServiceRow, layer: {} as LayerRow, stamp });

describe('remembered layers', () => {
  it('are found only by the caller that read them, anonymous callers sharing theirs', () => {
    const known = new KnownLayers();
    const [a, b] = [caller('a'), caller('b')];
    known.remember(a, 'Svc', '0', entry('a'));
    known.remember(undefined, 'Svc', '0', entry('anonymous'));
    expect(known.get(a, 'svc', '0')?.stamp).toBe('a');
    expect(known.get(b, 'svc', '0')).toBeUndefined();
    expect(known.get(undefined, 'SVC', '0')?.stamp).toBe('anonymous');
  });

  it('keep one entry for a layer however its number is written', () => {
    const known = new KnownLayers(2);
    const a = caller('a');
    known.remember(a, 'svc', '1', entry('first'));
    for (const id of ['01', '001', '000000001']) known.remember(a, 'svc', id, entry(id));
    known.remember(a, 'svc', '2', entry('two'));
    expect(known.get(a, 'svc', '1')?.stamp).toBe('000000001');
    expect(known.get(a, 'svc', '2')?.stamp).toBe('two');
    known.remember(a, 'svc', 'x', entry('no layer'));
    expect(known.get(a, 'svc', 'x')).toBeUndefined();
  });

  it('hold at most so many characters of stamps, the oldest going first', () => {
    const known = new KnownLayers(1000, 100);
    const a = caller('a');
    for (const id of ['0', '1', '2']) known.remember(a, 'svc', id, entry('x'.repeat(40)));
    expect(known.get(a, 'svc', '0')).toBeUndefined();
    expect(known.get(a, 'svc', '1')).toBeDefined();
    // Remembering a layer again replaces its stamp's count instead of adding to it.
    known.remember(a, 'svc', '2', entry('x'.repeat(60)));
    expect(known.get(a, 'svc', '1')).toBeDefined();
    known.remember(a, 'svc', '3', entry('x'.repeat(101)));
    expect([0, 1, 2, 3].map((id) => known.get(a, 'svc', String(id)))).toEqual([undefined, undefined, undefined, undefined]);
  });
});
