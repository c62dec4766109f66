// `chartshot migrate-to-postgres`'s usage text and its usage error: all src/cli.ts needs before it
// knows the command (cli-migrate.ts, SQLite and PostgreSQL are imported only then).
export class MigrateUsageError extends Error {}

export const MIGRATE_USAGE = '  migrate-to-postgres [--force] [--json]          copy the SQLite DATA_DIR into DATABASE_URL (--force: empty a non-empty target first)';
