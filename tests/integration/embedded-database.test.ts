import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startEmbeddedDatabase, type TEmbeddedDatabase } from "@/lib/db/embedded";

/**
 * The embedded PGlite server must not let any local process in: the loopback port demands the
 * generated password (SCRAM-SHA-256), and PGlite's own unauthenticated socket sits in a directory
 * only the app's user can open. (This file's own DATABASE_URL, from tests/support/database-setup.ts,
 * already goes through the password.)
 */
let database: TEmbeddedDatabase;

// The embedded database is tested once, in the PGlite project; the PostgreSQL project has no dump.
const onPglite = process.env.XCLAW_TEST_DATABASE !== "postgres";

beforeAll(async () => {
  if (!onPglite) return;
  // From the migrated dump the test setup made, which skips initdb.
  database = await startEmbeddedDatabase({ loadDataDir: new Blob([await readFile(inject("pgliteDumpPath"))]) });
});
afterAll(async () => {
  await database?.stop();
});

async function query(connectionString: string, sql = "SELECT 1 AS one"): Promise<unknown> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    return (await client.query(sql)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

function withoutPassword(url: string, password?: string): string {
  const changed = new URL(url);
  changed.password = password ?? "";
  return changed.toString();
}

/** A client that ignores the request for a password and sends a query right after its startup message. */
function rawStartupThenQuery(port: number): Promise<Buffer> {
  const parameters = Buffer.from("user\0postgres\0database\0postgres\0\0");
  const startup = Buffer.alloc(8 + parameters.length);
  startup.writeInt32BE(startup.length, 0);
  startup.writeInt32BE(196_608, 4);
  parameters.copy(startup, 8);
  const sql = Buffer.from("SELECT 'leaked' AS secret\0");
  const query = Buffer.alloc(5 + sql.length);
  query.write("Q", 0);
  query.writeInt32BE(4 + sql.length, 1);
  sql.copy(query, 5);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(Buffer.concat([startup, query])));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks)));
    setTimeout(() => socket.end(), 3_000);
  });
}

describe.runIf(onPglite)("embedded database access", () => {
  it("works with the URL it hands out, which carries the password", async () => {
    expect(new URL(database.url).password.length).toBeGreaterThanOrEqual(32);
    expect(await query(database.url)).toEqual([{ one: 1 }]);
  });

  it("refuses a connection without the password or with a wrong one", async () => {
    await expect(query(withoutPassword(database.url))).rejects.toThrow(/password/);
    await expect(query(withoutPassword(database.url, "wrong-password"))).rejects.toMatchObject({ code: "28P01" });
    const reply = await rawStartupThenQuery(database.port);
    expect(reply.toString("latin1")).toContain("password authentication is required");
    expect(reply.toString("latin1")).not.toContain("leaked");
  });

  it("keeps PGlite's own socket in a directory only the app's user can open", async () => {
    const directory = await stat(database.socketDirectory);
    expect(directory.mode & 0o777).toBe(0o700);
    expect(directory.uid).toBe(process.getuid!());
    if (process.getuid!() !== 0) return;
    // Another local user (nobody) is turned away by the directory's mode.
    const socketPath = path.join(database.socketDirectory, ".s.PGSQL.5432");
    const script = `require("net").connect(${JSON.stringify(socketPath)}).on("connect", () => { console.log("CONNECTED"); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(0) })`;
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ["-e", script], { uid: 65_534, gid: 65_534, cwd: "/", stdio: ["ignore", "pipe", "inherit"] });
      let text = "";
      child.stdout.on("data", (chunk) => (text += chunk));
      child.on("error", reject);
      child.on("close", () => resolve(text.trim()));
    });
    expect(output).toBe("EACCES");
  });

  it("creates the password on first start in the data directory (mode 0600) and keeps it", { timeout: 120_000 }, async () => {
    const data = await mkdtemp(path.join(os.tmpdir(), "xclaw-embedded-"));
    try {
      const first = await startEmbeddedDatabase({ dataDirectory: path.join(data, "pglite") });
      const password = new URL(first.url).password;
      await first.stop();
      const file = await stat(path.join(data, "pglite.password"));
      expect(file.mode & 0o777).toBe(0o600);
      const second = await startEmbeddedDatabase({ dataDirectory: path.join(data, "pglite") });
      try {
        expect(new URL(second.url).password).toBe(password);
        expect(await query(second.url)).toEqual([{ one: 1 }]);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  });
});
