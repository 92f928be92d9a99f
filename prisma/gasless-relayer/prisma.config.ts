import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI (generate, and `migrate deploy` where its engine can be downloaded).
export default defineConfig({
  schema: './schema.prisma',
  migrations: { path: './migrations' },
  datasource: { url: process.env['DATABASE_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/gasless_relayer' },
});
