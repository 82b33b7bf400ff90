import { serve } from "inngest/next";
import type { NextRequest } from "next/server";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { getBehaviourConfig } from "@/lib/config/behaviour";
import { AppError } from "@/lib/errors";
import { route } from "@/lib/http/route";

/**
 * Inngest's endpoint (jobs.runner: inngest): GET introspection, PUT sync, POST step execution.
 * The SDK's serve handler answers, and it refuses POSTs that are not signed with
 * INNGEST_SIGNING_KEY (unless INNGEST_DEV=1). With the embedded runner it is off, so nothing can
 * execute job functions through it.
 */
const handler = serve({ client: inngest, functions });

function served(method: "GET" | "POST" | "PUT") {
  return route(async (request) => {
    if (getBehaviourConfig().jobs.runner !== "inngest") {
      throw new AppError("not_found", "Jobs run on the embedded runner (jobs.runner: local in xclaw.yaml), so /api/inngest is off.");
    }
    return handler[method](request as NextRequest, undefined);
  });
}

export const GET = served("GET");
export const POST = served("POST");
export const PUT = served("PUT");
