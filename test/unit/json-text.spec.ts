import { JsonText } from '../../src/core/http/json-text';

describe('JsonText', () => {
  it('writes its pieces as the UTF-8 bytes of their text, whatever the characters', () => {
    const pieces = ['{"features":[', '{"name":"Städte 中文 ✓ 😀","n":1},{"name":""}', ']}'];
    const reply = new JsonText(...pieces);
    expect(reply.text).toBe(pieces.join(''));
    expect(reply.bytes().equals(Buffer.from(pieces.join(''), 'utf8'))).toBe(true);
    expect(JSON.parse(reply.bytes().toString('utf8'))).toEqual({ features: [{ name: 'Städte 中文 ✓ 😀', n: 1 }, { name: '' }] });
    expect(new JsonText('{"a":', '', '1}').bytes().toString()).toBe('{"a":1}');
  });
});
