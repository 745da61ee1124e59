import { IsBoolean, IsInt, IsOptional } from 'class-validator';
import { ArcgisError } from '../../src/core/errors/arcgis-error';
import { BoolParam, IntParam, validateParams } from '../../src/core/http/params.decorator';
import { boolParam, intParam, InvalidParam, jsonParam, readBool, readInt, requiredJsonParam } from '../../src/core/http/param-values';

/** The envelope fields a thrown ArcgisError carries. */
function envelope(f: () => unknown) {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ArcgisError);
    const { code, message, details } = e as ArcgisError;
    return { code, message, details };
  }
  throw new Error('expected a throw');
}

class Custom extends Error {
  constructor(readonly problem: InvalidParam) {
    super(problem.message);
  }
}
const custom = (p: InvalidParam) => new Custom(p);

/** The problem a Custom error carried. */
function caught(f: () => unknown): InvalidParam {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(Custom);
    return (e as Custom).problem;
  }
  throw new Error('expected a throw');
}

describe('readBool and readInt', () => {
  it.each([
    ['true', true],
    ['FALSE', false],
    [' True ', true],
    ['yes', undefined],
    ['1', undefined],
    ['', undefined],
  ])('readBool(%j) is %j', (raw, want) => expect(readBool(raw)).toBe(want));

  it.each([
    ['0', 0],
    ['42', 42],
    ['-7', -7],
    [' 12 ', 12],
    ['007', 7],
    ['1.0', undefined],
    ['1e3', undefined],
    ['0x10', undefined],
    ['+1', undefined],
    ['', undefined],
    ['12abc', undefined],
  ])('readInt(%j) is %j', (raw, want) => expect(readInt(raw)).toBe(want));
});

describe('boolParam', () => {
  it('gives the default when missing or blank', () => {
    expect(boolParam('b', undefined, true)).toBe(true);
    expect(boolParam('b', '', false)).toBe(false);
    expect(boolParam('b', '  ', true)).toBe(true);
  });

  it('reads true and false', () => {
    expect(boolParam('b', 'TRUE', false)).toBe(true);
    expect(boolParam('b', 'false', true)).toBe(false);
  });

  it('refuses anything else with a 400 naming the parameter', () => {
    expect(envelope(() => boolParam('returnGeometry', 'yes', true))).toEqual({
      code: 400,
      message: "'returnGeometry' must be true or false.",
      details: [],
    });
  });

  it("hands the problem to the caller's error factory", () => {
    expect(() => boolParam('b', 'maybe', true, custom)).toThrow(Custom);
    expect(() => boolParam('b', 'maybe', true, custom)).toThrow("'b' must be true or false.");
    expect(caught(() => boolParam('b', 'maybe', true, custom))).toMatchObject({ name: 'b', problem: 'syntax' });
  });
});

describe('intParam', () => {
  it('is undefined when missing or blank', () => {
    expect(intParam('n', undefined)).toBeUndefined();
    expect(intParam('n', ' ')).toBeUndefined();
  });

  it('reads whole numbers within the range, bounds included', () => {
    expect(intParam('n', '0', { min: 0, max: 10 })).toBe(0);
    expect(intParam('n', '10', { min: 0, max: 10 })).toBe(10);
    expect(intParam('n', '-3')).toBe(-3);
  });

  it.each(['11', '-1', '1.5', 'ten', '99999999999999999999'])('refuses %j for 0 to 10', (raw) => {
    expect(envelope(() => intParam('resultOffset', raw, { min: 0, max: 10 }))).toEqual({
      code: 400,
      message: "'resultOffset' must be a whole number from 0 to 10.",
      details: [],
    });
  });

  it('tells the error factory an unreadable number from one out of range', () => {
    expect(caught(() => intParam('n', 'ten', { min: 0, max: 10 }, custom))).toMatchObject({ problem: 'syntax' });
    expect(caught(() => intParam('n', '11', { min: 0, max: 10 }, custom))).toMatchObject({ problem: 'range' });
  });

  it('refuses integers a double cannot hold exactly when no range is given', () => {
    expect(() => intParam('n', '9007199254740993')).toThrow(ArcgisError);
  });
});

describe('jsonParam', () => {
  it('is undefined when missing or blank', () => {
    expect(jsonParam('p', undefined)).toBeUndefined();
    expect(jsonParam('p', '   ')).toBeUndefined();
  });

  it('parses each kind', () => {
    expect(jsonParam('p', '{"a":[1,2]}')).toEqual({ a: [1, 2] });
    expect(jsonParam('p', '[1]', 'array')).toEqual([1]);
    expect(jsonParam('p', 'null', 'any')).toBeNull();
    expect(jsonParam('p', '"x"', 'any')).toBe('x');
  });

  it('names the parameter and the syntax error when the text is not JSON', () => {
    const e = envelope(() => jsonParam('createParameters', '{"name":'));
    expect(e.message).toBe("'createParameters' is not valid JSON.");
    expect(e.details).toHaveLength(1);
    expect(e.details[0]).toMatch(/JSON/);
  });

  it.each([
    ['[]', 'object', "'p' must be a JSON object."],
    ['null', 'object', "'p' must be a JSON object."],
    ['"text"', 'object', "'p' must be a JSON object."],
    ['{}', 'array', "'p' must be a JSON array."],
  ] as const)('refuses %s where a JSON %s is wanted', (raw, kind, message) => {
    expect(envelope(() => jsonParam('p', raw, kind)).message).toBe(message);
  });

  it('refuses U+0000 in a value or a key, however deep, since PostgreSQL cannot store it', () => {
    for (const raw of ['{"a":"x\\u0000y"}', '{"a\\u0000":1}', '{"a":[{"b":["\\u0000"]}]}']) {
      expect(envelope(() => jsonParam('properties', raw))).toEqual({
        code: 400,
        message: "'properties' holds the character U+0000, which cannot be stored.",
        details: ['\\u0000 is not allowed'],
      });
    }
  });

  it('takes an escaped backslash followed by u0000, which is six ordinary characters', () => {
    expect(jsonParam('p', '{"path":"C:\\\\u0000"}')).toEqual({ path: 'C:\\u0000' });
  });

  it('walks JSON nested deeper than the call stack would allow a recursive walk', () => {
    const depth = 200_000;
    const raw = `{"a":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`;
    expect(() => jsonParam('p', raw)).toThrow("'p' holds the character U+0000");
  });

  it('gives the error factory the name, which rule was broken, the message and the reason', () => {
    const problem = (raw: string) => {
      try {
        jsonParam('properties', raw, 'object', custom);
      } catch (e) {
        return (e as Custom).problem;
      }
    };
    expect(problem('[1]')).toEqual({
      name: 'properties',
      problem: 'kind',
      message: "'properties' must be a JSON object.",
      reason: 'expected a JSON object',
    });
    expect(problem('{oops')).toMatchObject({
      name: 'properties',
      problem: 'syntax',
      message: "'properties' is not valid JSON.",
      reason: expect.any(String),
    });
    expect(problem('{"a":"\\u0000"}')).toMatchObject({ problem: 'nul' });
  });
});

describe('requiredJsonParam', () => {
  it('refuses a missing or blank parameter', () => {
    expect(envelope(() => requiredJsonParam('addToDefinition', undefined))).toEqual({
      code: 400,
      message: "'addToDefinition' is required.",
      details: [],
    });
    expect(caught(() => requiredJsonParam('addToDefinition', ' ', 'object', custom))).toMatchObject({ problem: 'missing' });
  });

  it('parses like jsonParam', () => {
    expect(requiredJsonParam('p', '{"layers":[]}')).toEqual({ layers: [] });
    expect(() => requiredJsonParam('p', '[]')).toThrow("'p' must be a JSON object.");
  });
});

describe('the DTO transforms read as the parameter readers do', () => {
  class Dto {
    @IsOptional() @IntParam() @IsInt({ message: 'n' }) n = 7;
    @IsOptional() @BoolParam() @IsBoolean({ message: 'b' }) b = true;
  }
  /** What a DTO makes of the text: its value, or 'refused'. */
  const dto = (key: 'n' | 'b', raw: string) => {
    try {
      return validateParams(Dto, { [key]: raw })[key];
    } catch {
      return 'refused';
    }
  };
  const reader = (f: () => unknown) => {
    try {
      return f();
    } catch {
      return 'refused';
    }
  };

  it.each(['', '  ', '5', ' 5 ', '-3', '007', '1e3', '1.0', '0x10', '+1', 'ten'])('integer %j', (raw) => {
    expect(dto('n', raw)).toBe(reader(() => intParam('n', raw) ?? 7));
  });

  it.each(['', ' ', 'true', ' FALSE ', 'yes', '1', 'maybe'])('boolean %j', (raw) => {
    expect(dto('b', raw)).toBe(reader(() => boolParam('b', raw, true)));
  });
});
