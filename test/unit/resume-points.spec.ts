import { ResumePoints } from '../../src/feature-server/query/resume-points';

describe('resume points', () => {
  it('give the nearest point at or before the offset, of the selection asked about', () => {
    const points = new ResumePoints();
    points.remember('a', { offset: 100, oid: 7, version: '1' });
    points.remember('a', { offset: 300, oid: 9, version: '1' });
    expect(points.get('a', 99)).toBeUndefined();
    expect(points.get('a', 100)?.oid).toBe(7);
    expect(points.get('a', 299)?.oid).toBe(7);
    expect(points.get('a', 5000)?.oid).toBe(9);
    expect(points.get('b', 5000)).toBeUndefined();
  });

  it('drop the points of an older version once a page saw a newer one', () => {
    const points = new ResumePoints();
    points.remember('a', { offset: 100, oid: 7, version: '1' });
    points.remember('a', { offset: 300, oid: 9, version: '2' });
    expect(points.get('a', 200)).toBeUndefined();
    expect(points.get('a', 300)?.version).toBe('2');
  });

  it('hold so many selections, characters of keys and points per selection, the oldest going first', () => {
    const points = new ResumePoints(2, 1000, 3);
    for (const key of ['a', 'b', 'c']) points.remember(key, { offset: 0, oid: 1, version: '1' });
    expect(points.get('a', 0)).toBeUndefined();
    expect(points.get('c', 0)).toBeDefined();
    const byChars = new ResumePoints(1000, 100);
    for (const key of ['x', 'y', 'z']) byChars.remember(key.repeat(40), { offset: 0, oid: 1, version: '1' });
    expect(byChars.get('x'.repeat(40), 0)).toBeUndefined();
    expect(byChars.get('y'.repeat(40), 0)).toBeDefined();
    for (let offset = 0; offset < 5; offset++) points.remember('c', { offset, oid: offset, version: '1' });
    expect(points.get('c', 1)).toBeUndefined();
    expect(points.get('c', 2)?.oid).toBe(2);
  });
});
