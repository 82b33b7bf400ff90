import { listModels } from "@/lib/openai-api/models";
import { openAiRoute, requireApiToken } from "@/lib/openai-api/openai-errors";

/** The agents the caller can talk to through /v1/chat/completions, as OpenAI models. */
export const GET = openAiRoute(async (request) => {
  const { user } = await requireApiToken(request);
  return Response.json(await listModels(user.id));
});
