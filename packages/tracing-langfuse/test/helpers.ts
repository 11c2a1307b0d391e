import { onCleanup } from "../../core/test/support/hosted-tracer-scenes.js";
import { type OtlpReceiver, type ReceiverMode, startOtlpReceiver } from "./otlp-receiver.js";

export {
  LEAD_USAGE,
  leadWithToolAndChild,
  messageText,
  mockModel,
  onCleanup,
  sleep,
} from "../../core/test/support/hosted-tracer-scenes.js";

/** A local OTLP receiver, closed after the test. */
export async function receiver(mode?: ReceiverMode): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver(mode);
  onCleanup(() => started.close());
  return started;
}
