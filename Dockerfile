# syntax=docker/dockerfile:1
#
# xclaw images (docs/deploy.md; compose.yaml builds both):
#   app             the default target: the web app through its launcher (scripts/start.ts, which
#                   runs the migrations and the Next.js standalone server); the plugin host runs
#                   from it too, with another command (compose.yaml, service plugin-host)
#   browser-worker  the browser worker (workers/browser) with Debian's Chromium; the only image
#                   with a browser in it
#
#   docker build -t xclaw .
#   docker build --target browser-worker -t xclaw-browser-worker .
#
# No secret is baked in: every key, password and secret comes from the environment at run time.

# Current Node.js LTS on Debian 13 (trixie), whose packages (chromium, bubblewrap, postgresql-client
# 17) the images below install.
ARG NODE_VERSION=26
ARG DEBIAN_RELEASE=trixie

FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS base
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1

# Every dependency, dev included, for the build. The postinstall step generates the Prisma client
# into lib/db/generated from the schema, so only what it reads is copied before `npm ci` (this
# layer is rebuilt only when the lockfile or the schema changes). scripts/prisma.mjs points the CLI
# at the WebAssembly schema engine in tools/ when Prisma could not download its native one.
FROM base AS deps
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts/prisma.mjs scripts/
COPY prisma/schema.prisma prisma/
COPY tools/prisma-schema-engine tools/prisma-schema-engine/
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
# next build + scripts/copy-standalone-assets.mjs: .next/standalone/ with its static files.
RUN npm run build

# Production dependencies only: no compilers, linters or test tools at run time. Install scripts
# are skipped: the one a production dependency needs is Prisma's generate, whose output comes from
# the build stage (lib/db/generated), and esbuild (for tsx) finds its binary without its own.
# Removed after the install, as build tools (about 330 MB of 1.2 GB): Next.js's SWC compiler (the
# standalone server runs without it), and the Prisma CLI and TypeScript with what only they use,
# which npm installs anyway as optional peers of @prisma/client.
FROM base AS production-dependencies
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -rf node_modules/@next/swc-* node_modules/prisma node_modules/typescript \
    node_modules/@prisma/studio-core node_modules/@prisma/dev node_modules/effect \
  && npm cache clean --force

# ---------------------------------------------------------------------------------------------
# The browser worker: Playwright drives Debian's Chromium (CHROMIUM_PATH). Fonts so that pages,
# Chinese and Japanese ones included, render with real glyphs.
FROM base AS browser-worker
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini chromium fonts-liberation fonts-noto-cjk ca-certificates \
  && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 xclaw \
  && useradd --system --uid 10001 --gid xclaw --create-home --home-dir /home/xclaw --shell /usr/sbin/nologin xclaw
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/tsconfig.json /app/xclaw.yaml ./
COPY --from=build /app/lib ./lib
COPY --from=build /app/workers ./workers
ENV NODE_ENV=production \
    CHROMIUM_PATH=/usr/bin/chromium \
    BROWSER_WORKER_HOST=0.0.0.0 \
    BROWSER_WORKER_PORT=3100 \
    XCLAW_CONFIG=/app/xclaw.yaml
USER xclaw
EXPOSE 3100
# The worker answers only requests that carry its secret, its health check included.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --start-interval=2s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.BROWSER_WORKER_PORT || 3100) + '/v1/health', { headers: { authorization: 'Bearer ' + process.env.BROWSER_WORKER_SECRET } }).then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# tini as PID 1 passes SIGTERM to the worker, which finishes its actions and closes Chromium itself.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "workers/browser/main.ts"]

# ---------------------------------------------------------------------------------------------
# The app (the last stage, so the default target). Beside Node.js it needs:
#   tini             PID 1; -g passes SIGTERM to the launcher's whole process group (the launcher,
#                    Next.js and the workers it starts), as systemd does for a service
#   bubblewrap       the shell sandbox (sandbox.mode: auto or bubblewrap; inside Docker it needs
#                    the security options in compose.yaml, docs/deploy.md "Shell sandbox")
#   util-linux       prlimit, for the sandbox's per-command limits
#   python3          run_python inside the sandbox
#   postgresql-client  pg_dump / pg_restore for `npm run xclaw -- backup` / `restore`
FROM base AS app
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini bubblewrap util-linux python3 postgresql-client ca-certificates \
  && rm -rf /var/lib/apt/lists/*
# A fixed uid, so that the data volume keeps its owner across image versions. The data directory
# is created here with that owner: Docker copies it into an empty named volume on first use.
RUN groupadd --system --gid 10001 xclaw \
  && useradd --system --uid 10001 --gid xclaw --create-home --home-dir /home/xclaw --shell /usr/sbin/nologin xclaw \
  && mkdir -p /var/lib/xclaw/extensions \
  && chown -R xclaw:xclaw /var/lib/xclaw
# The code belongs to root and is read-only for the app's user. The launcher, the workers and the
# `npm run xclaw` commands run from TypeScript sources through tsx (a production dependency);
# Next.js runs from its standalone output.
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json /app/tsconfig.json /app/xclaw.yaml ./
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/lib ./lib
COPY --from=build /app/workers ./workers
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/plugins ./plugins
COPY --from=build /app/skills ./skills
COPY --from=build /app/.next/BUILD_ID ./.next/BUILD_ID
COPY --from=build /app/.next/standalone ./.next/standalone
# Next.js may write its cache beside the standalone server; nothing else under /app is writable.
RUN mkdir -p .next/standalone/.next/cache && chown xclaw:xclaw .next/standalone/.next/cache
# The standalone server changes its working directory to its own folder, so every path the app
# reads is absolute here. HOSTNAME: Docker sets it to the container id, which the standalone
# server would otherwise bind to (unreachable on 127.0.0.1 for the health check).
ENV NODE_ENV=production \
    NEXT_MANUAL_SIG_HANDLE=1 \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOST=0.0.0.0 \
    HOSTNAME=0.0.0.0 \
    XCLAW_DATA_DIR=/var/lib/xclaw \
    XCLAW_CONFIG=/app/xclaw.yaml \
    XCLAW_BUNDLED_PLUGINS=/app/plugins \
    XCLAW_BUNDLED_SKILLS=/app/skills
USER xclaw
EXPOSE 3000
# Liveness: GET /api/health (readiness, /api/health?ready=1, is for load balancers). The start
# period covers pending migrations, which run before the server listens.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --start-interval=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "-g", "--"]
# `npm start` without npm in between: the launcher runs pending migrations, starts the server and
# the workers it is configured to start, and drains them on SIGTERM.
CMD ["node", "--import", "tsx", "scripts/start.ts", "start"]
