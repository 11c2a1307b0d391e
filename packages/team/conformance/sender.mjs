// A sender process for the TeamMailbox conformance suite's watch() test: opens the store through the adapter's open
// module, sends one message, prints its id as JSON and exits.
// Usage: node sender.mjs <open-module> <config-json> <to-mailbox> <content>
import { pathToFileURL } from "node:url";

const [moduleArg, configJson, to, content] = process.argv.slice(2);
const specifier = /^[a-z]+:/.test(moduleArg) ? moduleArg : pathToFileURL(moduleArg).href;
const open = (await import(specifier)).default;
const mailbox = await open(JSON.parse(configJson));
const message = await mailbox.send({ from: "t::lead", to, content });
await mailbox.close?.();
process.stdout.write(JSON.stringify({ id: message.id }));
