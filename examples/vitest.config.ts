import { packageTestConfig } from "../vitest.shared.js";

const config = packageTestConfig("examples");
// OpenTelemetry's packages export a "module" condition that points at a build meant for bundlers (extensionless
// ESM imports Node cannot load). Resolve them as Node does for a user: without that condition.
const withoutModule = (conditions: string[] | undefined) =>
  conditions?.filter(condition => condition !== "module");
if (config.resolve) config.resolve.conditions = withoutModule(config.resolve.conditions);
if (config.ssr?.resolve) config.ssr.resolve.conditions = withoutModule(config.ssr.resolve.conditions);

export default config;
