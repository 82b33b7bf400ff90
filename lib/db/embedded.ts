import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) with pgvector, persisted in a
 * directory and served over the PostgreSQL wire protocol on loopback, so the app talks to it with
 * the same `pg` + Prisma adapter code as to a real server. One process owns a data directory at a
 * time; a lock file with its pid turns a second start into a clear error instead of corruption.
 *
 * Access needs a password. PGlite's socket server has no authentication at all (it hands the
 * startup message straight to PGlite, which trusts everyone), so it listens only on a Unix socket
 * in a private directory (mode 0700: only this user can connect), and the loopback port is a small
 * front that does SCRAM-SHA-256 — PostgreSQL's own password exchange, which `pg`, psql and every
 * driver speak — before it joins the client to that socket. SCRAM also proves the server to the
 * client, so the app cannot be fooled into storing its data in an impostor on the same port. The
 * password is generated on first start and kept next to the data (`pglite.password`, mode 0600);
 * an in-memory database (tests) gets a fresh one each time.
 */
export type TEmbeddedDatabase = {
  /** postgresql://postgres:<password>@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  dataDirectory: string | undefined;
  /** The private directory (0700) of PGlite's own, unauthenticated socket. */
  socketDirectory: string;
  /** The PGlite instance itself, for dumps (test fixtures) and in-process queries. */
  pglite: PGlite;
  stop: () => Promise<void>;
};

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function takeLock(lockFile: string): Promise<void> {
  try {
    await writeFile(lockFile, String(process.pid), { flag: "wx" });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const owner = Number((await readFile(lockFile, "utf8").catch(() => "")).trim());
  if (owner && owner !== process.pid && isProcessAlive(owner)) {
    throw new Error(
      `the embedded database in ${path.dirname(lockFile)} is in use by process ${owner}. Stop that process, or set XCLAW_DATA_DIR to another directory.`,
    );
  }
  // The previous owner died without cleaning up: the lock is stale.
  await writeFile(lockFile, String(process.pid));
}

/** The database password, made on first start; the file is kept (or put back) at mode 0600. */
async function ensurePassword(file: string): Promise<string> {
  const existing = (await readFile(file, "utf8").catch(() => "")).trim();
  if (existing) {
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
    return existing;
  }
  // URL-safe, so it goes into DATABASE_URL as it is.
  const password = randomBytes(24).toString("base64url");
  await writeFile(file, password + "\n", { mode: 0o600, flag: "w" });
  await chmod(file, 0o600);
  return password;
}

// --- The SCRAM-SHA-256 front (RFC 5802 / 7677, as PostgreSQL does it) -------------------------

const PROTOCOL_3 = 196_608;
const SSL_REQUEST = 80_877_103;
const GSSENC_REQUEST = 80_877_104;
const CANCEL_REQUEST = 80_877_102;
const ITERATIONS = 4_096;
// Startup and SASL messages are small; anything bigger before authentication is not a client.
const MAX_MESSAGE_BYTES = 10_000;
const AUTHENTICATION_TIMEOUT_MS = 10_000;

type TScramSecrets = { salt: Buffer; storedKey: Buffer; serverKey: Buffer };

const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();

function scramSecrets(password: string): TScramSecrets {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, ITERATIONS, 32, "sha256");
  return { salt, storedKey: createHash("sha256").update(hmac(salted, "Client Key")).digest(), serverKey: hmac(salted, "Server Key") };
}

function authenticationMessage(code: number, data = ""): Buffer {
  const body = Buffer.from(data, "utf8");
  const message = Buffer.alloc(9 + body.length);
  message.write("R", 0);
  message.writeInt32BE(8 + body.length, 1);
  message.writeInt32BE(code, 5);
  body.copy(message, 9);
  return message;
}

function fatalMessage(code: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`, "utf8");
  const message = Buffer.alloc(5 + fields.length);
  message.write("E", 0);
  message.writeInt32BE(4 + fields.length, 1);
  fields.copy(message, 5);
  return message;
}

/** One client connection: startup, SCRAM, then a byte pipe to PGlite's private socket. */
function authenticate(socket: net.Socket, secrets: TScramSecrets, backendPath: string): void {
  let buffer = Buffer.alloc(0);
  let state: "startup" | "first" | "final" | "joined" = "startup";
  let startup = Buffer.alloc(0);
  let user = "";
  let gs2Header = "";
  let clientFirstBare = "";
  let serverFirst = "";
  let nonce = "";
  const timer = setTimeout(() => socket.destroy(), AUTHENTICATION_TIMEOUT_MS);
  const refuse = (code: string, text: string) => {
    state = "joined"; // stop reading
    clearTimeout(timer);
    socket.end(fatalMessage(code, text));
  };

  const join = () => {
    state = "joined";
    clearTimeout(timer);
    socket.off("data", onData);
    const backend = net.connect(backendPath);
    backend.on("error", () => socket.destroy());
    socket.on("close", () => backend.destroy());
    backend.on("close", () => socket.destroy());
    // PGlite answers the startup message with AuthenticationOk and the session parameters, which
    // is exactly what the client expects after SCRAM's final message.
    backend.write(startup);
    if (buffer.length) backend.write(buffer);
    socket.pipe(backend);
    backend.pipe(socket);
  };

  /** Handles one complete message if there is one; false when more bytes are needed (or the end). */
  const step = (): boolean => {
    if (state === "joined") return false;
    if (state === "startup") {
      if (buffer.length < 8) return false;
      const length = buffer.readInt32BE(0);
      if (length < 8 || length > MAX_MESSAGE_BYTES) return (socket.destroy(), false);
      if (buffer.length < length) return false;
      const message = buffer.subarray(0, length);
      buffer = buffer.subarray(length);
      const code = message.readInt32BE(4);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) return (socket.write("N"), true);
      // PGlite cannot cancel a query; without a backend key nothing could be matched anyway.
      if (code === CANCEL_REQUEST) return (socket.end(), false);
      if (code !== PROTOCOL_3) return (refuse("0A000", "unsupported frontend protocol"), false);
      startup = Buffer.from(message);
      const parameters = message.subarray(8).toString("utf8").split("\0");
      for (let index = 0; index + 1 < parameters.length; index += 2) if (parameters[index] === "user") user = parameters[index + 1]!;
      socket.write(authenticationMessage(10, "SCRAM-SHA-256\0\0"));
      state = "first";
      return true;
    }
    if (buffer.length < 5) return false;
    const length = buffer.readInt32BE(1);
    if (length < 4 || length > MAX_MESSAGE_BYTES) return (socket.destroy(), false);
    if (buffer.length < 1 + length) return false;
    const type = String.fromCharCode(buffer[0]!);
    const body = buffer.subarray(5, 1 + length);
    buffer = buffer.subarray(1 + length);
    if (type !== "p") return (refuse("28000", "password authentication is required"), false);
    if (state === "first") {
      // SASLInitialResponse: mechanism, NUL, length of the data, the client-first message.
      const end = body.indexOf(0);
      const mechanism = body.toString("utf8", 0, end);
      const data = end >= 0 && body.length >= end + 5 ? body.toString("utf8", end + 5, end + 5 + body.readInt32BE(end + 1)) : "";
      const match = /^([ny],[^,]*,)(n=[^,]*,r=([^,]+))$/.exec(data);
      if (mechanism !== "SCRAM-SHA-256" || !match) return (refuse("28000", "only SCRAM-SHA-256 without channel binding is supported"), false);
      gs2Header = match[1]!;
      clientFirstBare = match[2]!;
      nonce = match[3]! + randomBytes(18).toString("base64");
      serverFirst = `r=${nonce},s=${secrets.salt.toString("base64")},i=${ITERATIONS}`;
      socket.write(authenticationMessage(11, serverFirst));
      state = "final";
      return true;
    }
    // SASLResponse: the client-final message, "c=<gs2 header>,r=<nonce>,p=<proof>".
    const clientFinal = body.toString("utf8");
    const proofAt = clientFinal.lastIndexOf(",p=");
    const withoutProof = proofAt >= 0 ? clientFinal.slice(0, proofAt) : "";
    const authMessage = `${clientFirstBare},${serverFirst},${withoutProof}`;
    // ClientKey = ClientProof XOR HMAC(StoredKey, AuthMessage); it must hash to StoredKey.
    const proof = Buffer.from(clientFinal.slice(proofAt + 3), "base64");
    const signature = hmac(secrets.storedKey, authMessage);
    const clientKey = proof.length === signature.length ? Buffer.from(proof.map((byte, index) => byte ^ signature[index]!)) : Buffer.alloc(signature.length);
    const valid =
      withoutProof === `c=${Buffer.from(gs2Header).toString("base64")},r=${nonce}` &&
      timingSafeEqual(createHash("sha256").update(clientKey).digest(), secrets.storedKey);
    if (!valid) return (refuse("28P01", `password authentication failed for user "${user}"`), false);
    socket.write(authenticationMessage(12, `v=${hmac(secrets.serverKey, authMessage).toString("base64")}`));
    join();
    return false;
  };

  const onData = (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (step());
  };
  socket.on("data", onData);
  socket.on("error", () => socket.destroy());
  socket.on("close", () => clearTimeout(timer));
}

function listen(server: net.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/**
 * Starts PGlite. `dataDirectory` undefined means in memory (tests); `loadDataDir` seeds a fresh
 * instance from a dump made by `PGlite.dumpDataDir`, which skips initdb and migrations.
 */
export async function startEmbeddedDatabase(options: {
  dataDirectory?: string;
  port?: number;
  loadDataDir?: Blob;
}): Promise<TEmbeddedDatabase> {
  const { dataDirectory } = options;
  let lockFile: string | undefined;
  if (dataDirectory) {
    await mkdir(dataDirectory, { recursive: true });
    lockFile = path.join(path.dirname(dataDirectory), `${path.basename(dataDirectory)}.lock`);
    await takeLock(lockFile);
  }
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    if (lockFile) await rm(lockFile, { force: true });
  };
  try {
    const database = await PGlite.create({ dataDir: dataDirectory, extensions: { vector }, loadDataDir: options.loadDataDir });
    cleanups.push(() => database.close());
    const password = dataDirectory ? await ensurePassword(path.join(path.dirname(dataDirectory), `${path.basename(dataDirectory)}.password`)) : randomBytes(24).toString("base64url");
    // mkdtemp makes the directory 0700. A short path, as Unix socket paths are limited to 107 bytes.
    const socketDirectory = await mkdtemp(path.join(os.tmpdir(), "xclaw-db-socket-"));
    cleanups.push(() => rm(socketDirectory, { recursive: true, force: true }));
    const socketPath = path.join(socketDirectory, ".s.PGSQL.5432");
    // Several sockets may connect (the app, a migration, a reconnect after a dropped connection);
    // PGlite still runs one query at a time for all of them.
    const backend = new PGLiteSocketServer({ db: database, path: socketPath, maxConnections: 16 });
    await backend.start();
    cleanups.push(() => backend.stop());
    const secrets = scramSecrets(password);
    const clients = new Set<net.Socket>();
    const front = net.createServer((socket) => {
      clients.add(socket);
      socket.on("close", () => clients.delete(socket));
      authenticate(socket, secrets, socketPath);
    });
    const port = await listen(front, options.port ?? 0);
    cleanups.push(async () => {
      const closed = new Promise((resolve) => front.close(resolve));
      for (const client of clients) client.destroy();
      await closed;
    });
    let stopped = false;
    return {
      url: `postgresql://postgres:${password}@127.0.0.1:${port}/postgres?sslmode=disable`,
      port,
      dataDirectory,
      socketDirectory,
      pglite: database,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
