// T11: the memory mailbox passes the TeamMailbox conformance suite.
import { describeTeamMailboxConformance } from "../src/conformance.js";
import { createMemoryMailbox } from "../src/index.js";

describeTeamMailboxConformance("createMemoryMailbox()", { create: () => createMemoryMailbox() });
