import { inngestClient } from "@/lib/jobs/inngest-client";

/** The app's Inngest client (constructed in lib/jobs so that sendEvent can use it too). */
export const inngest = inngestClient();
