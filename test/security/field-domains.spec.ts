import { post, uniq } from '../support/client';
import { withApp } from '../support/harness';

/**
 * Domains an attacker would send to get a 500 or an unbounded layer definition: text PostgreSQL's jsonb cannot hold
 * (NUL) in every text member, refused with the parameter (parseFieldDomain refuses it too, for callers that parse
 * JSON otherwise: src/layers/field-domain.spec.ts), and more coded values than a domain may have. Each is a 400
 * before anything is written.
 */
const NUL = "'addToDefinition' holds the character U+0000, which cannot be stored.";

describe('attribute domains: hostile definitions', () => {
  const t = withApp({ users: { owner: 'org_publisher' } });
  const { owner } = t.users;

  const define = async (field: object) => {
    const created = await post(
      t.base,
      `content/users/${owner.username}/createService`,
      { createParameters: JSON.stringify({ name: uniq('hostile') }), outputType: 'featureService' },
      owner.token,
    );
    const admin = (created.body.serviceurl as string).replace('/rest/services/', '/rest/admin/services/');
    const layers = [{ name: 'L', geometryType: 'esriGeometryPoint', fields: [field] }];
    return post(admin, 'addToDefinition', { addToDefinition: JSON.stringify({ layers }) }, owner.token);
  };
  const coded = (over: object, codedValues: object[] = [{ name: 'A', code: 'a' }]) => ({
    name: 'F',
    type: 'esriFieldTypeString',
    domain: { type: 'codedValue', name: 'D', codedValues, ...over },
  });

  it.each([
    ['a NUL in the name', coded({ name: 'D\u0000' }), NUL],
    ['a NUL in the description', coded({ description: 'x\u0000' }), NUL],
    ['a NUL in a coded value name', coded({}, [{ name: 'A\u0000', code: 'a' }]), NUL],
    ['a NUL in a code', coded({}, [{ name: 'A', code: 'a\u0000' }]), NUL],
    [
      '10,001 coded values',
      {
        ...coded({}),
        type: 'esriFieldTypeInteger',
        domain: { type: 'codedValue', name: 'D', codedValues: Array.from({ length: 10_001 }, (_, i) => ({ name: 'x', code: i })) },
      },
      "'codedValues' must be an array of 1-10000",
    ],
  ])('refuses %s with a 400', async (_what, field, detail) => {
    const r = await define(field);
    expect(r.body.error.code).toBe(400);
    expect([r.body.error.message, ...r.body.error.details].join(' ')).toContain(detail);
  });
});
