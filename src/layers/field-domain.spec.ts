import { ArcgisError } from '../core/errors/arcgis-error';
import { checkDomainNames, domainsOf, parseFieldDomain } from './field-domain';

const details = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof ArcgisError) return e.details.join(' ');
    throw e;
  }
  throw new Error('not refused');
};

describe('parseFieldDomain', () => {
  const text = { name: 'Kind', type: 'esriFieldTypeString', length: 4 };
  const coded = (codedValues: object[], over: object = {}) => ({ type: 'codedValue', name: 'K', codedValues, ...over });

  it('keeps a valid domain as given, member order included, and null for none', () => {
    const d = { name: 'K', type: 'codedValue', codedValues: [{ code: 'a', name: 'A' }], description: 'd' };
    const parsed = parseFieldDomain(d, text)!;
    expect(parsed).toEqual({ name: 'K', type: 'codedValue', codedValues: [{ name: 'A', code: 'a' }], description: 'd' });
    expect(Object.keys(parsed)).toEqual(['name', 'type', 'codedValues', 'description']);
    expect(parseFieldDomain(undefined, text)).toBeNull();
    expect(parseFieldDomain(null, text)).toBeNull();
  });

  it('refuses NUL in every text member, which jsonb cannot store, whoever parsed the JSON', () => {
    expect(details(() => parseFieldDomain(coded([{ name: 'A', code: 'a' }], { name: 'K\0' }), text))).toContain("needs a 'name'");
    expect(details(() => parseFieldDomain(coded([{ name: 'A', code: 'a' }], { description: '\0' }), text))).toContain("'description'");
    expect(details(() => parseFieldDomain(coded([{ name: 'A\0', code: 'a' }]), text))).toContain('codedValues[0].name');
    expect(details(() => parseFieldDomain(coded([{ name: 'A', code: 'a\0' }]), text))).toContain('codedValues[0].code');
  });

  it('names where the domain is in the detail', () => {
    expect(details(() => parseFieldDomain('x', text, "Layer 'L': "))).toBe("Layer 'L': field 'Kind': domain must be a JSON object.");
  });

  it('takes dates as epoch milliseconds and bigints within what JSON numbers hold exactly', () => {
    expect(parseFieldDomain({ type: 'range', name: 'R', range: [0, 1.7e12] }, { name: 'D', type: 'esriFieldTypeDate' })).toBeTruthy();
    const big = { name: 'B', type: 'esriFieldTypeBigInteger' };
    expect(details(() => parseFieldDomain({ type: 'range', name: 'R', range: [0, 2 ** 60] }, big))).toContain("'range' must be");
  });
});

describe('domains by name', () => {
  const d = (description: string) => ({ type: 'codedValue' as const, name: 'D', description, codedValues: [{ name: 'A', code: 1 }] });
  const layer = (name: string, description: string) => ({
    name,
    fields: [{ name: 'F', type: 'esriFieldTypeInteger', domain: d(description) }],
  });

  it('lets layers share a domain, whatever the order of its members, but not give one name two definitions', () => {
    const reordered = {
      fields: [
        {
          name: 'G',
          type: 'esriFieldTypeInteger',
          domain: { codedValues: [{ code: 1, name: 'A' }], description: 'x', name: 'D', type: 'codedValue' as const },
        },
      ],
      name: 'M',
    };
    expect(() => checkDomainNames([layer('L', 'x'), reordered])).not.toThrow();
    expect(details(() => checkDomainNames([layer('L', 'x'), layer('M', 'y')]))).toContain("Domain 'D' of layer 'M', field 'F' differs");
    expect(domainsOf([layer('L', 'x'), reordered])).toEqual([
      { type: 'codedValue', name: 'D', fieldType: 'esriFieldTypeInteger', description: 'x', codedValues: [{ name: 'A', code: 1 }] },
    ]);
  });
});
