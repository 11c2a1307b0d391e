import { tool } from "agent-lattice";
import { z } from "zod/v4";

/** Multiplies, adds, subtracts or divides two numbers: enough arithmetic for the demo, no eval. */
export const calculator = tool(
  "calculator",
  "Compute a op b for two numbers, where op is one of + - * /.",
  z.object({ a: z.number(), op: z.enum(["+", "-", "*", "/"]), b: z.number() }),
  async ({ a, op, b }) => {
    if (op === "/" && b === 0) return { content: "Division by zero is undefined.", isError: true };
    const value = op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : a / b;
    return { content: String(value) };
  },
);
