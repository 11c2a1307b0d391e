/**
 * Ports (tracers, history stores) expose methods only; whether their failures are swallowed or propagated is
 * bound when the factory creates them and kept here, out of the public object.
 */
const failOnErrorOf = new WeakMap<object, boolean>();

export function bindFailurePolicy<T extends object>(port: T, failOnError: boolean): T {
  failOnErrorOf.set(port, failOnError);
  return port;
}

/** undefined when the object was not created by one of the SDK's define*() factories. */
export function failurePolicyOf(port: object): boolean | undefined {
  return failOnErrorOf.get(port);
}
