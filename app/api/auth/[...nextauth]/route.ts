import NextAuth from "next-auth";
import { nextAuthOptions } from "@/lib/auth/next-auth-options";

// next-auth builds its handler per request so configuration is read after start-up validation.
async function handler(request: Request, context: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(request as never, context as never, nextAuthOptions()) as Promise<Response>;
}

export { handler as GET, handler as POST };
