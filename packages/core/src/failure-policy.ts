import { BRANDS, brand, brandOf } from "./brand.js";

/**
 * Ports (tracers, history stores) expose methods only; whether their failures are swallowed or propagated is
 * bound when the factory creates them, as a registered-symbol brand (so a port made by another installed copy of
 * core is recognised too).
 */
export function bindFailurePolicy<T extends object>(port: T, failOnError: boolean): T {
  return brand(port, BRANDS.failurePolicy, failOnError);
}

/** undefined when the object was not created by one of the SDK's define*() factories. */
export function failurePolicyOf(port: object): boolean | undefined {
  const policy = brandOf(port, BRANDS.failurePolicy);
  return typeof policy === "boolean" ? policy : undefined;
}
