import { createRequire } from "node:module";
import { InvalidOptionError } from "./errors.js";
import type { JsonSchemaObject } from "./model-client.js";

/**
 * What the SDK accepts as a schema: anything with `parse(input): T` (a zod schema works directly) or a
 * Standard Schema validator (`~standard`: zod, valibot, arktype …). JSON Schema for the model comes from the
 * schema itself (Standard JSON Schema `~standard.jsonSchema`, or zod's `toJSONSchema()`), so core never
 * imports a validation library and hosts pay only for the one they use.
 */
export interface ParseSchema<T = unknown> {
  parse(input: unknown): T;
}

export interface StandardSchemaLike<T = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardResult<T> | Promise<StandardResult<T>>;
    readonly types?: { readonly input: unknown; readonly output: T } | undefined;
    readonly jsonSchema?: { input(options: { target: string }): Record<string, unknown> };
  };
}

/** What a Standard Schema validator's `validate()` returns: the parsed value, or the issues found. */
export type StandardResult<T> =
  | { readonly value: T; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        message: string;
        path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
      }>;
    };

/** A hand-written validator with an explicit JSON Schema for the model. */
export interface JsonSchemaBacked<T = unknown> extends ParseSchema<T> {
  jsonSchema: Record<string, unknown>;
}

export type SchemaLike<T = unknown> = ParseSchema<T> | StandardSchemaLike<T> | JsonSchemaBacked<T>;

/** The value type a schema produces. */
export type InferSchema<S> = S extends { parse(input: unknown, ...rest: any[]): infer O }
  ? O
  : S extends StandardSchemaLike<infer O>
    ? O
    : unknown;

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; message: string };

export async function validateWithSchema<T>(
  schema: SchemaLike<T>,
  input: unknown,
): Promise<ValidationResult<T>> {
  const standard = (schema as StandardSchemaLike<T>)["~standard"];
  if (standard && typeof standard.validate === "function") {
    const result = await standard.validate(input);
    if (result.issues) return { ok: false, message: formatIssues(result.issues) };
    return { ok: true, value: result.value as T };
  }
  try {
    return { ok: true, value: (schema as ParseSchema<T>).parse(input) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

function formatIssues(
  issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>,
): string {
  return issues
    .map(issue => {
      const path = (issue.path ?? [])
        .map(part => String(typeof part === "object" ? part.key : part))
        .join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

export function isSchemaLike(value: unknown): value is SchemaLike {
  if (value === null || typeof value !== "object") return false;
  const candidate = value as Partial<ParseSchema & StandardSchemaLike>;
  return typeof candidate.parse === "function" || typeof candidate["~standard"]?.validate === "function";
}

/**
 * Derives the JSON Schema the model sees. Throws at assembly time when the schema cannot describe itself,
 * because sending a tool without an input schema would let the model guess its arguments.
 */
export function toJsonSchema(schema: SchemaLike, owner: string): Record<string, unknown> {
  const standard = (schema as StandardSchemaLike)["~standard"];
  let json: Record<string, unknown> | undefined;
  if (standard?.jsonSchema && typeof standard.jsonSchema.input === "function") {
    json = standard.jsonSchema.input({ target: "draft-2020-12" });
  } else if (typeof (schema as { toJSONSchema?: unknown }).toJSONSchema === "function") {
    json = (schema as unknown as { toJSONSchema(options: object): Record<string, unknown> }).toJSONSchema({
      io: "input",
    });
  } else if (typeof (schema as { jsonSchema?: unknown }).jsonSchema === "object") {
    json = (schema as unknown as { jsonSchema: Record<string, unknown> }).jsonSchema;
  } else if (isZod4Schema(schema)) {
    json = zodCoreToJsonSchema()?.(schema, { io: "input" });
  }
  if (!json) {
    throw new InvalidOptionError(
      `${owner}: cannot derive a JSON Schema from this schema. Pass a zod 4 schema (import { z } from "zod/v4"), ` +
        "a Standard JSON Schema validator, or an object { parse(input), jsonSchema } with an explicit JSON Schema.",
    );
  }
  const { $schema: _dialect, ...rest } = json;
  return rest;
}

/** True when the schema can describe itself as JSON Schema (see toJsonSchema for the ways it can). */
export function canDeriveJsonSchema(schema: unknown): boolean {
  if (schema === null || typeof schema !== "object") return false;
  const candidate = schema as {
    "~standard"?: { jsonSchema?: unknown };
    toJSONSchema?: unknown;
    jsonSchema?: unknown;
  };
  return (
    typeof candidate["~standard"]?.jsonSchema === "object" ||
    typeof candidate.toJSONSchema === "function" ||
    typeof candidate.jsonSchema === "object" ||
    (isZod4Schema(schema) && zodCoreToJsonSchema() !== undefined)
  );
}

/**
 * zod 4.0/4.1 and zod 3.25's `zod/v4` schemas carry no JSON Schema method of their own (4.2 added
 * `toJSONSchema()` and Standard JSON Schema); their `_zod` internals mark them, and zod's own converter
 * (`toJSONSchema` from `zod/v4/core`, present in every version of the peer range) describes them.
 */
function isZod4Schema(schema: unknown): boolean {
  return typeof (schema as { _zod?: { def?: unknown } })._zod?.def === "object";
}

type ZodToJsonSchema = (schema: unknown, options: { io: "input" }) => Record<string, unknown>;
let zodConverter: ZodToJsonSchema | null | undefined;

/** zod's converter, loaded once and only for such schemas: the host that passed one has zod installed. */
function zodCoreToJsonSchema(): ZodToJsonSchema | undefined {
  if (zodConverter === undefined) {
    try {
      zodConverter = createRequire(import.meta.url)("zod/v4/core").toJSONSchema as ZodToJsonSchema;
    } catch {
      zodConverter = null;
    }
  }
  return zodConverter ?? undefined;
}

/** Tool input schemas must describe a JSON object: that is what the Messages API sends as tool input. */
export function toToolInputSchema(schema: SchemaLike, owner: string): JsonSchemaObject {
  const json = toJsonSchema(schema, owner);
  if (json.type !== "object") {
    throw new InvalidOptionError(
      `${owner}: a tool's input schema must describe an object (got type ${JSON.stringify(json.type)}). ` +
        "Wrap the value in z.object({ ... }).",
    );
  }
  return json as JsonSchemaObject;
}
