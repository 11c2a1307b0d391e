import type { JsonSchemaBacked } from "@agent-lattice/core";

/**
 * Tool input schemas written as plain JSON Schema plus a small validator. The built-in tools are created by
 * every createAgent(), so they must not pull a validation library into a host's start-up: this covers the
 * handful of field kinds the seven tools need, nothing more.
 */
type FieldSpec =
  | { type: "string"; description: string; optional?: boolean; minLength?: number; enum?: readonly string[] }
  | {
      type: "integer" | "number";
      description: string;
      optional?: boolean;
      minimum?: number;
      maximum?: number;
    }
  | { type: "boolean"; description: string; optional?: boolean }
  | { type: "string[]"; description: string; optional?: boolean };

type ValueOf<F extends FieldSpec> = F extends { type: "string"; enum: readonly (infer E)[] }
  ? E
  : F extends { type: "string" }
    ? string
    : F extends { type: "integer" | "number" }
      ? number
      : F extends { type: "boolean" }
        ? boolean
        : string[];

type Optional<F extends Record<string, FieldSpec>> = {
  [K in keyof F]: F[K] extends { optional: true } ? K : never;
}[keyof F];

export type InputOf<F extends Record<string, FieldSpec>> = {
  [K in Exclude<keyof F, Optional<F>>]: ValueOf<F[K]>;
} & { [K in Optional<F>]?: ValueOf<F[K]> };

export function inputSchema<const F extends Record<string, FieldSpec>>(
  fields: F,
): JsonSchemaBacked<InputOf<F>> {
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    properties[name] = jsonSchemaOf(field);
    if (!field.optional) required.push(name);
  }
  return {
    jsonSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
    parse(input: unknown): InputOf<F> {
      if (!input || typeof input !== "object" || Array.isArray(input)) {
        throw new Error(`expected an object with ${Object.keys(fields).join(", ")}`);
      }
      const value = input as Record<string, unknown>;
      const problems: string[] = [];
      const output: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(fields)) {
        const entry = value[name];
        if (entry === undefined || entry === null) {
          if (!field.optional) problems.push(`${name}: required`);
          continue;
        }
        const problem = checkField(field, entry);
        if (problem) problems.push(`${name}: ${problem}`);
        else output[name] = entry;
      }
      if (problems.length) throw new Error(problems.join("; "));
      return output as InputOf<F>;
    },
  };
}

function jsonSchemaOf(field: FieldSpec): Record<string, unknown> {
  switch (field.type) {
    case "string":
      return {
        type: "string",
        ...(field.minLength !== undefined ? { minLength: field.minLength } : {}),
        ...(field.enum ? { enum: [...field.enum] } : {}),
        description: field.description,
      };
    case "integer":
    case "number":
      return {
        type: field.type,
        ...(field.minimum !== undefined ? { minimum: field.minimum } : {}),
        ...(field.maximum !== undefined ? { maximum: field.maximum } : {}),
        description: field.description,
      };
    case "boolean":
      return { type: "boolean", description: field.description };
    case "string[]":
      return { type: "array", items: { type: "string" }, description: field.description };
  }
}

function checkField(field: FieldSpec, value: unknown): string | undefined {
  switch (field.type) {
    case "string":
      if (typeof value !== "string") return `expected string, received ${kindOf(value)}`;
      if (field.minLength !== undefined && value.length < field.minLength) return "must not be empty";
      if (field.enum && !field.enum.includes(value))
        return `expected one of ${field.enum.map(e => `"${e}"`).join(", ")}`;
      return undefined;
    case "integer":
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value))
        return `expected ${field.type}, received ${kindOf(value)}`;
      if (field.type === "integer" && !Number.isInteger(value))
        return "expected integer, received a fraction";
      if (field.minimum !== undefined && value < field.minimum) return `must be >= ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be <= ${field.maximum}`;
      return undefined;
    case "boolean":
      return typeof value === "boolean" ? undefined : `expected boolean, received ${kindOf(value)}`;
    case "string[]":
      return Array.isArray(value) && value.every(entry => typeof entry === "string")
        ? undefined
        : "expected an array of strings";
  }
}

function kindOf(value: unknown): string {
  return Array.isArray(value) ? "array" : typeof value;
}

/** The validated input type of a schema made by inputSchema(). */
export type InferInput<S> = S extends JsonSchemaBacked<infer T> ? T : never;
