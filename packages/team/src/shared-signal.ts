import { setMaxListeners } from "node:events";

/**
 * A controller whose signal every work item of a run shares (the run's interrupt): each running member's query
 * listens to it once — core's delegation path does — so it carries one listener per running item, a number the
 * scheduler already bounds (maxConcurrentWorkItems). Node would flag the eleventh as a possible leak; it is not one.
 */
export function sharedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
