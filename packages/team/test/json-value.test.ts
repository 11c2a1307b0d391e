// The memory mailbox normalises metadata and outcomes to JSON without the text round trip: toJsonValue() must give
// exactly what JSON.parse(JSON.stringify(value)) gives (and throw where it throws), for plain data and every quirk.
import { describe, expect, it } from "vitest";
import { copyJsonValue, toJsonValue } from "../src/json-value.js";

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value));

class Point {
  constructor(
    public x: number,
    public y: number,
  ) {}
}

describe("toJsonValue()", () => {
  const cases: Array<[string, unknown]> = [
    ["plain nested data", { a: 1, b: "two", c: [true, null, { d: [1.5, -2] }], e: {} }],
    ["key order, integer-like keys first", { b: 1, a: 2, 10: "x", 2: "y" }],
    [
      "undefined, functions and symbols in objects are dropped",
      { a: undefined, b: () => 1, c: Symbol("s"), d: 1 },
    ],
    [
      "undefined, functions and holes in arrays become null",
      Object.assign(new Array(4), { 0: undefined, 1: () => 1, 3: 3 }),
    ],
    [
      "non-finite numbers become null",
      { a: Number.NaN, b: Number.POSITIVE_INFINITY, c: [Number.NEGATIVE_INFINITY] },
    ],
    ["negative zero becomes zero", { a: -0, b: [-0] }],
    ["dates go through toJSON()", { at: new Date(0) }],
    ["toJSON() anywhere is honoured", { a: { toJSON: () => "replaced" }, b: [{ toJSON: () => 7 }] }],
    ["class instances keep their own enumerable fields only", { p: new Point(1, 2) }],
    ["maps and sets become empty objects", { m: new Map([[1, 2]]), s: new Set([1]) }],
    ["null-prototype objects are plain", Object.assign(Object.create(null), { a: 1 })],
    ["a __proto__ key stays an own property", JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')],
    [
      "non-enumerable and symbol keys are ignored",
      Object.defineProperty({ [Symbol("k")]: 1, a: 1 }, "hidden", { value: 2 }),
    ],
    ["boxed primitives unwrap", { s: new String("x"), n: new Number(3), b: new Boolean(false) }],
    ["very deep values", JSON.parse(`${"[".repeat(200)}1${"]".repeat(200)}`)],
  ];
  for (const [name, value] of cases) {
    it(name, () => {
      const normalised = toJsonValue(value);
      expect(normalised).toStrictEqual(roundTrip(value));
      expect(JSON.stringify(normalised)).toBe(JSON.stringify(value));
      if (name.includes("__proto__")) {
        expect(Object.getPrototypeOf(normalised)).toBe(Object.prototype);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }
    });
  }

  it("returns a copy: changing it (or the input) leaves the other alone", () => {
    const input = { a: { b: [1, 2] } };
    const output = toJsonValue(input) as typeof input;
    output.a.b.push(3);
    expect(input.a.b).toEqual([1, 2]);
    input.a.b.push(4);
    expect(output.a.b).toEqual([1, 2, 3]);
  });

  it("throws JSON's errors: cycles and bigints", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => toJsonValue(cyclic)).toThrow(TypeError);
    expect(() => toJsonValue({ big: 1n })).toThrow(TypeError);
    const cyclicArray: unknown[] = [];
    cyclicArray.push({ inner: cyclicArray });
    expect(() => toJsonValue(cyclicArray)).toThrow(TypeError);
  });
});

describe("copyJsonValue()", () => {
  it("deep-copies plain JSON", () => {
    const value = { a: [1, { b: "c" }], d: null };
    const copy = copyJsonValue(value);
    expect(copy).toStrictEqual(value);
    expect(copy.a).not.toBe(value.a);
    expect(copy.a[1]).not.toBe(value.a[1]);
  });
});
