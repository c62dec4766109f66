// `chartshot test`'s usage text and its usage error: all src/cli.ts needs before it knows the
// command is test (cli-test.ts and the renderer are imported only then).
export const TEST_USAGE = `  test <dir> [--update] [--report OUT] [--threshold 0-1] [--max-diff-pixels N] [--jobs N] [--server URL --api-key KEY]`;

export class TestUsageError extends Error {}
