// `chartshot test`'s usage text and its usage error: all src/cli.ts needs before it knows the
// command is test (cli-test.ts and the renderer are imported only then).
export const TEST_USAGE = `  test <dir> [--update[=missing|changed|all]] [--report OUT] [--threshold 0-1] [--max-diff-pixels N] [--max-diff-ratio 0-1]
       [--max-diff-window N:K] [--ignore-antialiasing] [--jobs N] [--shard i/n] [--server URL --api-key KEY]
  test merge <report-dir>... [--report OUT]        one report and one JUnit from the reports of shards`;

export class TestUsageError extends Error {}
