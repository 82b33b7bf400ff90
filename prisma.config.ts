import { defineConfig } from "prisma/config";

// The CLI reads the database from DATABASE_URL (migrate dev/deploy/status); `migrate diff
// --from-migrations` replays the migrations into SHADOW_DATABASE_URL. The app itself never
// reads this file: lib/db builds its own connection.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: {
    url: process.env.DATABASE_URL ?? "",
    shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL,
  },
});
