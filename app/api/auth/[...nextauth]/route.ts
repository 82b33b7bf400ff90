import { handleNextAuth } from "@/lib/auth/next-auth-handler";
import { route } from "@/lib/http/route";

// next-auth's routes (CSRF token, the sign-in form post, sign-out, session) behind the same body
// limit, input checks, error format and no-store as every other API route.
const handler = route<{ nextauth?: string[] }>((request, { params }) => handleNextAuth(request, params.nextauth ?? []));

export { handler as GET, handler as POST };
