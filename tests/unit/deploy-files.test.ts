import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEPLOY_CHECKS, type TDeployFiles } from "../support/deploy-checks";

/**
 * The Dockerfile, compose.yaml, the Caddyfile and .dockerignore, read and checked for what matters
 * (issue 25): no Docker engine runs here. Every check passes on the files in the repository and
 * fails on a copy broken in the way it is about, so none of them can pass by accident.
 */
const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const files: TDeployFiles = {
  dockerfile: read("Dockerfile"),
  compose: read("compose.yaml"),
  caddyfile: read("Caddyfile"),
  envExample: read(".env.example"),
  dockerignore: read(".dockerignore"),
};

/** `from` must occur in the text (`last`: its last occurrence is replaced), or the broken copy would be no copy at all. */
function replace(text: string, from: string, to: string, options: { last?: boolean } = {}): string {
  const at = options.last ? text.lastIndexOf(from) : text.indexOf(from);
  if (at < 0) throw new Error(`the text to break is not in the file: ${from}`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

type TBreakage = { check: string; what: string; file: keyof TDeployFiles; change: (text: string) => string; problem: RegExp };

const BREAKAGES: TBreakage[] = [
  {
    check: "compose.yaml follows the Compose Specification",
    what: "a command whose text YAML reads as a mapping",
    file: "compose",
    change: (text) =>
      replace(
        text,
        "      - |\n        test -n \"$$XCLAW_DOMAIN\" || { echo 'xclaw: set XCLAW_DOMAIN in .env to the domain that points at this server' >&2; exit 1; }\n        exec caddy run",
        "      - test -n \"$$XCLAW_DOMAIN\" || { echo 'xclaw: set XCLAW_DOMAIN in .env to the domain that points at this server' >&2; exit 1; }; exec caddy run",
      ),
    problem: /services\/caddy\/command/,
  },
  { check: "compose.yaml follows the Compose Specification", what: "YAML that does not parse", file: "compose", change: (text) => replace(text, "    shm_size: 256mb\n", "    shm_size: 256mb\n   stray: [\n"), problem: /not valid YAML/ },
  { check: "compose.yaml follows the Compose Specification", what: "an unknown service key", file: "compose", change: (text) => replace(text, "    shm_size: 256mb\n", "    shm_size: 256mb\n    restart_policy: always\n"), problem: /must NOT have additional properties/ },
  { check: "services and profiles", what: "Inngest starts without its profile", file: "compose", change: (text) => replace(text, "    profiles: [inngest]\n", ""), problem: /inngest must be in the profile inngest/ },
  { check: "services and profiles", what: "Caddy starts without its profile", file: "compose", change: (text) => replace(text, "    profiles: [caddy]\n", ""), problem: /caddy must be in the profile caddy/ },
  { check: "services and profiles", what: "no plugin host", file: "compose", change: (text) => replace(text, "  plugin-host:\n", "  plugins:\n"), problem: /no service plugin-host/ },
  { check: "services and profiles", what: "the app has a fixed name", file: "compose", change: (text) => replace(text, "    restart: unless-stopped\n", "    restart: unless-stopped\n    container_name: xclaw\n"), problem: /app must be scalable/ },
  { check: "health checks", what: "PostgreSQL without pg_isready", file: "compose", change: (text) => replace(text, "pg_isready -U xclaw -d xclaw", "true"), problem: /postgres needs a pg_isready/ },
  { check: "health checks", what: "the app image checks another path", file: "dockerfile", change: (text) => replace(text, "'/api/health'", "'/'"), problem: /app needs a health check on \/api\/health/ },
  { check: "health checks", what: "the plugin host inherits the app's check", file: "compose", change: (text) => replace(text, "fetch('http://127.0.0.1:3200/v1/health'", "fetch('http://127.0.0.1:3000/api/health'"), problem: /plugin-host needs its own health check/ },
  { check: "health checks", what: "the app does not wait for the database", file: "compose", change: (text) => replace(text, "postgres: { condition: service_healthy }", "postgres: { condition: service_started }"), problem: /app must wait for postgres/ },
  { check: "named volumes", what: "PostgreSQL on a bind mount", file: "compose", change: (text) => replace(text, "- postgres-data:/var/lib/postgresql/data", "- /srv/postgres:/var/lib/postgresql/data"), problem: /postgres must keep its database in a named volume/ },
  { check: "named volumes", what: "no volume for the data directory", file: "compose", change: (text) => replace(text, "      - xclaw-data:/var/lib/xclaw\n", ""), problem: /app must keep the data directory/ },
  { check: "named volumes", what: "Inngest keeps its state in the container", file: "compose", change: (text) => replace(text, "      - inngest-data:/var/lib/inngest\n", ""), problem: /inngest must keep its state/ },
  { check: "nothing listens publicly but Caddy", what: "the app on every interface", file: "compose", change: (text) => replace(text, 'expose: ["3000"]', 'ports: ["3000:3000"]'), problem: /app publishes 3000 on every interface/ },
  { check: "nothing listens publicly but Caddy", what: "the Inngest dashboard on every interface", file: "compose", change: (text) => replace(text, '"127.0.0.1:8288:8288"', '"8288:8288"'), problem: /inngest publishes 8288 on every interface/ },
  { check: "nothing listens publicly but Caddy", what: "Caddy publishes its admin port", file: "compose", change: (text) => replace(text, '      - "80:80"\n', '      - "80:80"\n      - "2019:2019"\n'), problem: /caddy publishes 2019/ },
  { check: "nothing listens publicly but Caddy", what: "PostgreSQL on loopback", file: "compose", change: (text) => replace(text, "    shm_size: 256mb\n", '    shm_size: 256mb\n    ports: ["127.0.0.1:5432:5432"]\n'), problem: /postgres must not be published/ },
  { check: "secrets come from .env", what: "a secret written into compose.yaml", file: "compose", change: (text) => replace(text, "${NEXTAUTH_SECRET:?set NEXTAUTH_SECRET in .env (openssl rand -base64 32)}", "correct-horse-battery-staple-0123456789"), problem: /NEXTAUTH_SECRET/ },
  { check: "secrets come from .env", what: "the browser worker reads .env", file: "compose", change: (text) => replace(text, "    image: xclaw-browser-worker:", "    env_file: .env\n    image: xclaw-browser-worker:"), problem: /browser-worker must not read .env/ },
  { check: "secrets come from .env", what: "the plugin host gets the database", file: "compose", change: (text) => replace(text, "      PLUGIN_HOST_HOST: 0.0.0.0\n", "      PLUGIN_HOST_HOST: 0.0.0.0\n      DATABASE_URL: postgresql://xclaw:${POSTGRES_PASSWORD}@postgres:5432/xclaw\n"), problem: /plugin-host must not get DATABASE_URL/ },
  { check: "secrets come from .env", what: "the app talks to an embedded worker", file: "compose", change: (text) => replace(text, "BROWSER_WORKER_URL: http://browser-worker:3100", "BROWSER_WORKER_URL: http://127.0.0.1:3100"), problem: /BROWSER_WORKER_URL must point at the browser-worker service/ },
  { check: "every variable is documented in .env.example", what: "an undocumented variable", file: "compose", change: (text) => replace(text, "      XCLAW_DATA_DIR: /var/lib/xclaw\n", "      XCLAW_DATA_DIR: /var/lib/xclaw\n      XCLAW_SURPRISE: ${XCLAW_SURPRISE:-1}\n"), problem: /XCLAW_SURPRISE is used/ },
  { check: "every variable is documented in .env.example", what: ".env.example loses POSTGRES_PASSWORD", file: "envExample", change: (text) => replace(text, "# POSTGRES_PASSWORD=", "#"), problem: /POSTGRES_PASSWORD is used/ },
  { check: "the workers cannot reach the database", what: "the plugin host on the database network", file: "compose", change: (text) => replace(text, "    networks: [workers]\n    stop_grace_period: 35s", "    networks: [workers, database]\n    stop_grace_period: 35s"), problem: /plugin-host shares a network with postgres/ },
  { check: "images: Debian slim Node, app the default target", what: "a full Debian base image", file: "dockerfile", change: (text) => replace(text, "-${DEBIAN_RELEASE}-slim AS base", "-${DEBIAN_RELEASE} AS base"), problem: /node:<version>-<debian release>-slim/ },
  { check: "images: Debian slim Node, app the default target", what: "another stage after the app", file: "dockerfile", change: (text) => `${text}\nFROM base AS tools\nRUN true\n`, problem: /app must be the last stage/ },
  { check: "runtime stages run as a user other than root", what: "the app runs as root", file: "dockerfile", change: (text) => replace(text, "USER xclaw", "USER root", { last: true }), problem: /stage app must end with USER/ },
  { check: "runtime stages run as a user other than root", what: "the browser worker never leaves root", file: "dockerfile", change: (text) => replace(text, "USER xclaw\nEXPOSE 3100", "EXPOSE 3100"), problem: /stage browser-worker must end with USER/ },
  { check: "an init as PID 1 and SIGTERM", what: "no init in the app", file: "dockerfile", change: (text) => replace(text, 'ENTRYPOINT ["/usr/bin/tini", "-g", "--"]', 'ENTRYPOINT ["node"]'), problem: /stage app needs an init/ },
  { check: "an init as PID 1 and SIGTERM", what: "the app stops on another signal", file: "dockerfile", change: (text) => replace(text, "STOPSIGNAL SIGTERM", "STOPSIGNAL SIGKILL", { last: true }), problem: /stage app must stop with SIGTERM/ },
  { check: "an init as PID 1 and SIGTERM", what: "Next.js handles signals itself", file: "dockerfile", change: (text) => replace(text, "NEXT_MANUAL_SIG_HANDLE=1", "NEXT_MANUAL_SIG_HANDLE=0"), problem: /NEXT_MANUAL_SIG_HANDLE=1/ },
  { check: "no dev dependencies at run time", what: "dev dependencies installed for production", file: "dockerfile", change: (text) => replace(text, "npm ci --omit=dev", "npm ci"), problem: /installs dev dependencies/ },
  { check: "no dev dependencies at run time", what: "node_modules taken from the build", file: "dockerfile", change: (text) => replace(text, "COPY --from=production-dependencies /app/node_modules", "COPY --from=build /app/node_modules", { last: true }), problem: /stage app copies node_modules from a stage that installs dev dependencies/ },
  { check: "no secret in the images", what: "an API key in ENV", file: "dockerfile", change: (text) => replace(text, "USER xclaw\nEXPOSE 3000", "ENV OPENAI_API_KEY=sk-live-0123456789\nUSER xclaw\nEXPOSE 3000"), problem: /ENV OPENAI_API_KEY bakes a secret/ },
  { check: "no secret in the images", what: "a secret as a build argument's default", file: "dockerfile", change: (text) => replace(text, "ARG NODE_VERSION=26", "ARG NODE_VERSION=26\nARG NEXTAUTH_SECRET=build-time-secret"), problem: /ARG NEXTAUTH_SECRET bakes a secret/ },
  { check: "Chromium only in the browser worker, bubblewrap in the app", what: "Chromium in the app image", file: "dockerfile", change: (text) => replace(text, "tini bubblewrap util-linux", "tini chromium bubblewrap util-linux"), problem: /app image must not contain Chromium/ },
  { check: "Chromium only in the browser worker, bubblewrap in the app", what: "no bubblewrap", file: "dockerfile", change: (text) => replace(text, "tini bubblewrap util-linux", "tini util-linux"), problem: /must install bubblewrap/ },
  { check: ".dockerignore keeps local files out", what: ".env files in the build context", file: "dockerignore", change: (text) => replace(text, "\n.env*\n", "\n"), problem: /must list \.env\*/ },
  { check: ".dockerignore keeps local files out", what: "the data directory in the build context", file: "dockerignore", change: (text) => replace(text, "\n.data\n", "\n"), problem: /must list \.data/ },
  { check: ".dockerignore keeps local files out", what: "backups in the build context", file: "dockerignore", change: (text) => replace(text, "\nbackups\n", "\n"), problem: /must list backups/ },
  { check: "Caddy streams to the app", what: "buffered streams", file: "caddyfile", change: (text) => replace(text, "\t\tflush_interval -1\n", ""), problem: /flush_interval -1/ },
  { check: "Caddy streams to the app", what: "a fixed site name", file: "caddyfile", change: (text) => replace(text, "{$XCLAW_DOMAIN} {", "xclaw.example.com {"), problem: /must serve \{\$XCLAW_DOMAIN\}/ },
];

describe("deployment files", () => {
  it.each(Object.keys(DEPLOY_CHECKS))("%s", (check) => {
    expect(DEPLOY_CHECKS[check]!(files)).toEqual([]);
  });

  it("every check is tried on a broken copy", () => {
    expect(Object.keys(DEPLOY_CHECKS).filter((check) => !BREAKAGES.some((breakage) => breakage.check === check))).toEqual([]);
  });

  it.each(BREAKAGES.map((breakage) => [`${breakage.check}: ${breakage.what}`, breakage] as const))("fails on a broken copy — %s", (_, breakage) => {
    const broken = { ...files, [breakage.file]: breakage.change(files[breakage.file]) };
    const problems = DEPLOY_CHECKS[breakage.check]!(broken);
    expect(problems.some((problem) => breakage.problem.test(problem)), `problems: ${JSON.stringify(problems)}`).toBe(true);
  });
});
