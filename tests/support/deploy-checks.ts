import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020";
import {
  caddyBlock,
  commandWords,
  composeVariables,
  declaredVariables,
  documentedVariables,
  namedVolumeMounts,
  parseCompose,
  parseDockerfile,
  publishedPorts,
  serviceEnvironment,
  type TCompose,
  type TComposeService,
  type TDockerfile,
  type TStage,
} from "./deploy-files";

/**
 * What matters in the deployment files (issue 25, "Images and compose"), one check per concern.
 * Each check takes the files' texts and returns its problems, one sentence each: none for the
 * files in the repository, at least one for a copy broken in the way the check is about
 * (tests/unit/deploy-files.test.ts tries both).
 */
export type TDeployFiles = { dockerfile: string; compose: string; caddyfile: string; envExample: string; dockerignore: string };
type TParsed = { dockerfile: TDockerfile; compose: TCompose; services: Record<string, TComposeService> };

const CORE_SERVICES = ["app", "browser-worker", "plugin-host", "postgres"];
const PROFILES: Record<string, string> = { inngest: "inngest", caddy: "caddy" };
const REQUIRED_SECRETS = ["POSTGRES_PASSWORD", "NEXTAUTH_SECRET", "NEXTAUTH_URL", "BROWSER_WORKER_SECRET", "PLUGIN_HOST_SECRET"];
const SECRET_NAME = /SECRET|PASSWORD|TOKEN|_KEY$|^KEY$/i;
/** What the workers must never get: they run untrusted pages and plugin code. */
const APP_ONLY_VARIABLES = /^(DATABASE_URL|NEXTAUTH_SECRET|.*_API_KEY|POSTGRES_PASSWORD)$/;

/** The Compose Specification's own schema (tests/fixtures/compose-spec/README.md says which). */
const validateComposeSpecification = new Ajv2020({ allErrors: true, strict: false }).compile(
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../fixtures/compose-spec/compose-spec.json"), "utf8")),
);

function parsed(files: TDeployFiles): TParsed {
  const compose = parseCompose(files.compose);
  return { dockerfile: parseDockerfile(files.dockerfile), compose, services: compose.services ?? {} };
}

function stage(dockerfile: TDockerfile, name: string): TStage | undefined {
  return dockerfile.stages.find((candidate) => candidate.name === name);
}

/** The stages a container runs: the targets compose builds, and the last stage (the default target). */
function runtimeStages({ dockerfile, services }: TParsed): TStage[] {
  const targets = new Set(Object.values(services).flatMap((service) => (service.build?.target ? [service.build.target] : [])));
  if (dockerfile.stages.length) targets.add(dockerfile.stages.at(-1)!.name);
  return dockerfile.stages.filter((candidate) => targets.has(candidate.name));
}

/** A stage's instructions of one kind, those of the stages it is built FROM first. */
function inherited(dockerfile: TDockerfile, from: TStage, keyword: string): string[] {
  const parent = stage(dockerfile, from.from);
  const own = from.instructions.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.arguments);
  return [...(parent && parent !== from ? inherited(dockerfile, parent, keyword) : []), ...own];
}

function effectiveEnvironment(dockerfile: TDockerfile, target: TStage): Map<string, string | undefined> {
  const environment = new Map<string, string | undefined>();
  for (const text of inherited(dockerfile, target, "ENV")) for (const [name, value] of declaredVariables({ keyword: "ENV", arguments: text, line: 0 })) environment.set(name, value);
  return environment;
}

function networksOf(service: TComposeService): string[] {
  if (!service.networks) return ["default"];
  return Array.isArray(service.networks) ? service.networks : Object.keys(service.networks);
}

export const DEPLOY_CHECKS: Record<string, (files: TDeployFiles) => string[]> = {
  "compose.yaml follows the Compose Specification": (files) => {
    // Compose substitutes variables before it validates: give each one a value, as a filled .env does.
    let compose: unknown;
    try {
      compose = parseCompose(files.compose.replace(/(?<!\$)\$\{[A-Za-z_][A-Za-z0-9_]*[^}]*\}/g, "x"));
    } catch (error) {
      return [`compose.yaml is not valid YAML: ${(error as Error).message.split("\n")[0]}`];
    }
    // Top-level x- keys are extensions (here the YAML anchor of the app image); the schema allows them.
    if (validateComposeSpecification(compose)) return [];
    return (validateComposeSpecification.errors ?? []).map((error) => `compose.yaml${error.instancePath}: ${error.message}`);
  },

  "services and profiles": (files) => {
    const { services } = parsed(files);
    const problems: string[] = [];
    for (const name of CORE_SERVICES) {
      if (!services[name]) problems.push(`compose.yaml has no service ${name}`);
      else if (services[name].profiles?.length) problems.push(`${name} must start without a profile`);
    }
    for (const [name, profile] of Object.entries(PROFILES)) {
      if (!services[name]) problems.push(`compose.yaml has no service ${name}`);
      else if (services[name].profiles?.join() !== profile) problems.push(`${name} must be in the profile ${profile} only`);
    }
    const app = services.app;
    if (app?.build?.target !== "app") problems.push("app must be built from the Dockerfile's app target");
    if (app && ("container_name" in app || publishedPorts(app).length)) problems.push("app must be scalable: no container_name and no published host port");
    if (services["browser-worker"]?.build?.target !== "browser-worker") problems.push("browser-worker must be built from the browser-worker target");
    const host = services["plugin-host"];
    if (host && (host.image !== app?.image || !JSON.stringify(host.command ?? "").includes("workers/plugins/main.ts"))) problems.push("plugin-host must run workers/plugins/main.ts from the app's image");
    return problems;
  },

  "health checks": (files) => {
    const { dockerfile, services } = parsed(files);
    const problems: string[] = [];
    const healthcheckOf = (name: string) => {
      const service = services[name];
      if (!service || service.healthcheck?.disable) return "";
      if (service.healthcheck?.test) return JSON.stringify(service.healthcheck.test);
      const target = service.build?.target ? stage(dockerfile, service.build.target) : undefined;
      return target ? inherited(dockerfile, target, "HEALTHCHECK").join(" ") : "";
    };
    if (!healthcheckOf("postgres").includes("pg_isready")) problems.push("postgres needs a pg_isready health check");
    if (!healthcheckOf("app").includes("/api/health")) problems.push("app needs a health check on /api/health");
    if (!healthcheckOf("browser-worker").includes("/v1/health")) problems.push("browser-worker needs a health check on /v1/health");
    if (!healthcheckOf("plugin-host").includes(":3200/v1/health")) problems.push("plugin-host needs its own health check on /v1/health (the image's checks the app's port)");
    const dependsOn = services.app?.depends_on;
    if (Array.isArray(dependsOn) || dependsOn?.postgres?.condition !== "service_healthy") problems.push("app must wait for postgres to be healthy");
    return problems;
  },

  "named volumes": (files) => {
    const { compose, services } = parsed(files);
    const declared = new Set(Object.keys(compose.volumes ?? {}));
    const problems: string[] = [];
    const requireVolume = (service: string, target: string | undefined, what: string) => {
      const volume = target && services[service] ? namedVolumeMounts(services[service]).get(target) : undefined;
      if (!volume || !declared.has(volume)) problems.push(`${service} must keep ${what} in a named volume at ${target ?? "(unknown path)"}`);
    };
    requireVolume("postgres", "/var/lib/postgresql/data", "its database");
    const dataDirectory = services.app ? serviceEnvironment(services.app).get("XCLAW_DATA_DIR") : undefined;
    requireVolume("app", dataDirectory ?? undefined, "the data directory (XCLAW_DATA_DIR)");
    const sqlite = JSON.stringify(services.inngest?.command ?? "").match(/--sqlite-dir[= ]([^"\s,]+)/)?.[1];
    requireVolume("inngest", sqlite, "its state (--sqlite-dir)");
    return problems;
  },

  "nothing listens publicly but Caddy": (files) => {
    const { services } = parsed(files);
    const problems: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      for (const port of publishedPorts(service)) {
        if (name === "caddy" && ["80", "443"].includes(port.target)) continue;
        if (port.hostIp !== "127.0.0.1") problems.push(`${name} publishes ${port.target} on ${port.hostIp ?? "every interface"}, not 127.0.0.1`);
      }
    }
    if (services.postgres && publishedPorts(services.postgres).length) problems.push("postgres must not be published at all");
    const dashboard = services.inngest ? publishedPorts(services.inngest).find((port) => port.target === "8288") : undefined;
    if (dashboard?.hostIp !== "127.0.0.1") problems.push("the Inngest dashboard (8288) must be published on 127.0.0.1 only");
    const caddyTargets = services.caddy ? publishedPorts(services.caddy).map((port) => port.target) : [];
    if (!caddyTargets.includes("80") || !caddyTargets.includes("443")) problems.push("caddy must publish 80 and 443");
    return problems;
  },

  "secrets come from .env": (files) => {
    const { services } = parsed(files);
    const problems: string[] = [];
    for (const name of REQUIRED_SECRETS) if (!files.compose.includes(`\${${name}:?`)) problems.push(`compose.yaml must require ${name} with \${${name}:?…}`);
    for (const [serviceName, service] of Object.entries(services)) {
      for (const [name, value] of serviceEnvironment(service)) {
        if (SECRET_NAME.test(name) && value !== null && !value.includes("${")) problems.push(`${serviceName}: ${name} has a value written into compose.yaml`);
      }
    }
    if (!serviceEnvironment(services.app ?? {}).get("DATABASE_URL")?.includes("${POSTGRES_PASSWORD")) problems.push("app's DATABASE_URL must take its password from POSTGRES_PASSWORD");
    if (!JSON.stringify(services.app?.env_file ?? "").includes(".env")) problems.push("app must read .env (env_file)");
    const appEnvironment = serviceEnvironment(services.app ?? {});
    if (!appEnvironment.get("BROWSER_WORKER_URL")?.startsWith("http://browser-worker:")) problems.push("app's BROWSER_WORKER_URL must point at the browser-worker service");
    if (!appEnvironment.get("PLUGIN_HOST_URL")?.startsWith("http://plugin-host:")) problems.push("app's PLUGIN_HOST_URL must point at the plugin-host service");
    for (const worker of ["browser-worker", "plugin-host"]) {
      const service = services[worker];
      if (!service) continue;
      if (service.env_file) problems.push(`${worker} must not read .env: it would get every secret`);
      for (const name of serviceEnvironment(service).keys()) if (APP_ONLY_VARIABLES.test(name)) problems.push(`${worker} must not get ${name}`);
    }
    return problems;
  },

  "every variable is documented in .env.example": (files) => {
    const documented = documentedVariables(files.envExample);
    const used = composeVariables(files.compose, parseCompose(files.compose));
    for (const match of files.caddyfile.matchAll(/\{\$([A-Za-z_][A-Za-z0-9_]*)/g)) used.add(match[1]!);
    const problems = [...used].filter((name) => !documented.has(name)).map((name) => `${name} is used by compose.yaml or the Caddyfile but not documented in .env.example`);
    if (!/^# --- Docker Compose only/m.test(files.envExample)) problems.push(`.env.example needs its "Docker Compose only" section`);
    return problems;
  },

  "the workers cannot reach the database": (files) => {
    const { services } = parsed(files);
    const database = new Set(networksOf(services.postgres ?? {}));
    return ["browser-worker", "plugin-host"].flatMap((worker) =>
      services[worker] && networksOf(services[worker]).some((network) => database.has(network)) ? [`${worker} shares a network with postgres`] : [],
    );
  },

  "images: Debian slim Node, app the default target": (files) => {
    const { dockerfile } = parsed(files);
    const problems: string[] = [];
    const first = dockerfile.stages[0];
    if (!first || !/^node:\S*-slim$/.test(first.from) || !dockerfile.globalArguments.some((argument) => /DEBIAN_RELEASE=\w+/.test(argument.arguments))) {
      problems.push("the images must start from node:<version>-<debian release>-slim");
    }
    if (dockerfile.stages.at(-1)?.name !== "app") problems.push("app must be the last stage, so that `docker build .` builds it");
    const build = stage(dockerfile, "build");
    const builds = build ? [...inherited(dockerfile, build, "RUN")].join("\n") : "";
    if (!/npm ci(?!.*--omit)/.test(builds) || !builds.includes("npm run build")) problems.push("the build stage must run npm ci and npm run build");
    return problems;
  },

  "runtime stages run as a user other than root": (files) => {
    const state = parsed(files);
    return runtimeStages(state).flatMap((target) => {
      const user = inherited(state.dockerfile, target, "USER").at(-1)?.split(":")[0];
      return !user || user === "root" || user === "0" ? [`stage ${target.name} must end with USER <a user other than root>`] : [];
    });
  },

  "an init as PID 1 and SIGTERM": (files) => {
    const state = parsed(files);
    const problems: string[] = [];
    for (const target of runtimeStages(state)) {
      const entrypoint = target.instructions.filter((instruction) => instruction.keyword === "ENTRYPOINT").at(-1);
      if (!entrypoint || !/(^|\/)(tini|dumb-init)$/.test(commandWords(entrypoint)[0] ?? "")) problems.push(`stage ${target.name} needs an init (tini) as its ENTRYPOINT`);
      if (inherited(state.dockerfile, target, "STOPSIGNAL").at(-1) !== "SIGTERM") problems.push(`stage ${target.name} must stop with SIGTERM`);
    }
    const app = stage(state.dockerfile, "app");
    const environment = app ? effectiveEnvironment(state.dockerfile, app) : new Map();
    for (const [name, value] of Object.entries({ NEXT_MANUAL_SIG_HANDLE: "1", NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" })) {
      if (environment.get(name) !== value) problems.push(`the app image must set ${name}=${value}`);
    }
    return problems;
  },

  "no dev dependencies at run time": (files) => {
    const state = parsed(files);
    const problems: string[] = [];
    for (const target of runtimeStages(state)) {
      const copies = target.instructions.filter((instruction) => instruction.keyword === "COPY" && /node_modules/.test(instruction.arguments));
      if (!copies.length) problems.push(`stage ${target.name} has no node_modules`);
      for (const copy of copies) {
        const source = stage(state.dockerfile, /--from=(\S+)/.exec(copy.arguments)?.[1] ?? "");
        const installs = source ? inherited(state.dockerfile, source, "RUN").filter((run) => /npm (ci|install)/.test(run)) : [];
        if (!installs.length || installs.some((run) => !run.includes("--omit=dev"))) problems.push(`stage ${target.name} copies node_modules from a stage that installs dev dependencies`);
      }
      if (target.instructions.some((instruction) => instruction.keyword === "RUN" && /npm (ci|install)/.test(instruction.arguments) && !instruction.arguments.includes("--omit=dev"))) {
        problems.push(`stage ${target.name} installs dev dependencies`);
      }
    }
    return problems;
  },

  "no secret in the images": (files) => {
    const { dockerfile } = parsed(files);
    const instructions = [...dockerfile.globalArguments, ...dockerfile.stages.flatMap((target) => target.instructions)];
    return instructions
      .filter((instruction) => instruction.keyword === "ENV" || instruction.keyword === "ARG")
      .flatMap((instruction) => [...declaredVariables(instruction)].filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined).map(([name]) => `line ${instruction.line}: ${instruction.keyword} ${name} bakes a secret into the image`));
  },

  "Chromium only in the browser worker, bubblewrap in the app": (files) => {
    const { dockerfile } = parsed(files);
    const installed = (name: string) => {
      const target = stage(dockerfile, name);
      return target ? inherited(dockerfile, target, "RUN").filter((run) => run.includes("apt-get install")).join(" ") : "";
    };
    const problems: string[] = [];
    if (/\bchromium\b/.test(installed("app"))) problems.push("the app image must not contain Chromium");
    if (!/\bchromium\b/.test(installed("browser-worker"))) problems.push("the browser-worker image must install chromium");
    if (!/\bbubblewrap\b/.test(installed("app"))) problems.push("the app image must install bubblewrap for the shell sandbox");
    const worker = stage(dockerfile, "browser-worker");
    if (!worker || effectiveEnvironment(dockerfile, worker).get("CHROMIUM_PATH") !== "/usr/bin/chromium") problems.push("the browser-worker image must set CHROMIUM_PATH=/usr/bin/chromium");
    return problems;
  },

  ".dockerignore keeps local files out": (files) => {
    const lines = new Set(files.dockerignore.split("\n").map((line) => line.trim()));
    return ["node_modules", ".next", ".data", "backups", ".git", "tests", "test-results", ".env*"].filter((entry) => !lines.has(entry)).map((entry) => `.dockerignore must list ${entry}`);
  },

  "Caddy streams to the app": (files) => {
    const problems: string[] = [];
    const site = caddyBlock(files.caddyfile, /^\{\$XCLAW_DOMAIN\}/);
    if (!site) problems.push("the Caddyfile must serve {$XCLAW_DOMAIN}");
    const proxy = site ? caddyBlock(site.join("\n"), /^reverse_proxy\b/) : undefined;
    if (!proxy?.some((line) => /\bapp\b.*\b3000\b/.test(line))) problems.push("Caddy must proxy to app:3000");
    if (!proxy?.some((line) => /^flush_interval\s+-1$/.test(line))) problems.push("Caddy's reverse_proxy needs flush_interval -1, or chat streams are buffered");
    if (!JSON.stringify(parseCompose(files.compose).services.caddy?.volumes ?? []).includes("./Caddyfile:/etc/caddy/Caddyfile")) problems.push("the caddy service must mount ./Caddyfile");
    return problems;
  },
};
