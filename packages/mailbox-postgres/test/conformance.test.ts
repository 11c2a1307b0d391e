// The PostgreSQL mailbox passes the TeamMailbox conformance suite: against a real server, with a second connection
// pool on the same schema (reopen) and four claimer processes at once (crossProcess), plus watch() across processes.
import type { TeamMailbox } from "@agent-lattice/team";
import { describeTeamMailboxConformance } from "@agent-lattice/team/conformance";
import { afterAll, describe } from "vitest";
import { createPostgresMailbox, type PostgresMailbox } from "../src/index.js";
import { closeAdmin, dropSchema, freshSchema, PG_URL, skipNote } from "./pg.js";

describe.skipIf(!PG_URL)(`PostgreSQL mailbox conformance${skipNote}`, () => {
  afterAll(closeAdmin);
  describeTeamMailboxConformance("createPostgresMailbox()", {
    create: () => createPostgresMailbox({ connectionString: PG_URL, schema: freshSchema(), poolSize: 4 }),
    reopen: mailbox =>
      createPostgresMailbox({
        connectionString: PG_URL,
        schema: (mailbox as PostgresMailbox).schema,
        poolSize: 4,
      }),
    async destroy(mailbox: TeamMailbox) {
      await mailbox.close?.();
      await dropSchema((mailbox as PostgresMailbox).schema);
    },
    crossProcess: {
      module: new URL("./fixtures/open-postgres-mailbox.mjs", import.meta.url),
      config: mailbox => ({ url: PG_URL, schema: (mailbox as PostgresMailbox).schema }),
      processes: 4,
    },
  });
});
