import { readJson, route } from "@/lib/http/route";
import { describeAccountLink, redeemAccountLink, ZRedeemAccountLink } from "@/lib/users/account-links";

// No sign-in: the 256-bit token in the path is the credential (one use, expires; lib/users/account-links.ts).
export const GET = route<{ token: string }>(async (_request, { params }) => Response.json(await describeAccountLink(params.token)));

export const POST = route<{ token: string }>(async (request, { params }) => {
  const input = await readJson(request, ZRedeemAccountLink);
  return Response.json(await redeemAccountLink({ token: params.token, password: input.password }));
});
