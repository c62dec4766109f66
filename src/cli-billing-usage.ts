// `chartshot billing`'s usage text and its usage error: all src/cli.ts needs before it knows the
// command is billing (cli-billing.ts and the billing engine are imported only then).
export class BillingUsageError extends Error {}

export const BILLING_USAGE = `  billing payment-failed|payment-succeeded|cancel|restore|close-period|status --account <id> [--now ISO] [--json]
  billing change-plan --account <id> --plan <starter|growth|pro|enterprise> [--cycle monthly|annual] [--json]
  billing run-scheduler [--now ISO] [--json]
  billing set-webhook --account <id> --url <URL|none>
  billing set-limits --account <id> [--charts N|none] [--per-minute N] [--per-hour N] [--burst N] [--price-pence N]
                     [--retention-days N|none] [--discount-percent P|none]   (enterprise)
  billing outbox [--account <id>] [--json]`;
