export * from "./events.js";
export * from "./mock-server.js";
export * from "./prompt-blocks.js";
export * from "./prompt-cache.js";
export * from "./script.js";
export * from "./scripted-client.js";
export * from "./wire.js";
