import { clientIp } from "@/lib/auth/client-ip";
import { readJson, route } from "@/lib/http/route";
import { registerUser, ZRegister } from "@/lib/users/users";

export const POST = route(async (request) => {
  const input = await readJson(request, ZRegister);
  const user = await registerUser(input, { ip: clientIp(request.headers) });
  return Response.json({ user }, { status: 201 });
});
