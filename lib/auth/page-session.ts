import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { User } from "@/lib/db/generated/client";
import { userFromSessionToken } from "./authenticate";
import { sessionTokenFromCookies } from "./session-token";

/**
 * The signed-in user for server components and layouts, checked against the database exactly like
 * API requests are (session version, disabled accounts). Pages redirect instead of answering 401.
 */
export async function getPageUser(): Promise<User | undefined> {
  const store = await cookies();
  return userFromSessionToken(sessionTokenFromCookies((name) => store.get(name)?.value));
}

export async function requirePageUser(): Promise<User> {
  const user = await getPageUser();
  if (!user) redirect("/sign-in");
  return user;
}

export async function requirePageAdmin(): Promise<User> {
  const user = await requirePageUser();
  if (user.role !== "ADMIN") redirect("/");
  return user;
}
