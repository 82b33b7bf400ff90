import { z } from "zod";
import { defineTool } from "./registry";

export const currentTimeTool = defineTool({
  name: "current_time",
  description: "Get the current date and time, optionally in an IANA time zone such as Europe/Berlin or Asia/Shanghai.",
  input: z.object({ timezone: z.string().max(64).optional().describe("IANA time zone; default UTC") }),
  risk: "read",
  async execute({ timezone }) {
    const zone = timezone || "UTC";
    let formatted: string;
    try {
      formatted = new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        dateStyle: "full",
        timeStyle: "long",
      }).format(new Date());
    } catch {
      return { content: [{ type: "text", text: `Unknown time zone "${zone}". Use an IANA name such as Europe/Berlin.` }], isError: true };
    }
    return `${formatted} (${zone}); ISO 8601 UTC: ${new Date().toISOString()}`;
  },
});
