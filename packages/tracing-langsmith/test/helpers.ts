import { onCleanup } from "../../core/test/support/hosted-tracer-scenes.js";
import {
  type LangSmithReceiver,
  type ReceiverOptions,
  startLangSmithReceiver,
} from "./langsmith-receiver.js";

export {
  LEAD_USAGE,
  leadWithToolAndChild,
  messageText,
  mockModel,
  sleep,
} from "../../core/test/support/hosted-tracer-scenes.js";

/** A local LangSmith API stand-in, closed after the test. */
export async function receiver(options?: ReceiverOptions): Promise<LangSmithReceiver> {
  const started = await startLangSmithReceiver(options);
  onCleanup(() => started.close());
  return started;
}
