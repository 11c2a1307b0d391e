import { startTemporaryPostgres } from "@agent-lattice/mailbox-postgres/test-server";

const s = await startTemporaryPostgres({
  port: 55433,
  settings: { fsync: "off", synchronous_commit: "off" },
});
console.log(s.url);
process.on("SIGTERM", async () => {
  await s.stop();
  process.exit(0);
});
setInterval(() => {}, 1000);
