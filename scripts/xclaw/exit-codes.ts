/**
 * What `xclaw` exits with, for scripts: 0 done, 1 the run failed or was stopped (or the server
 * refused the request), 2 the command line was wrong, 3 the run waits for someone's approval on
 * the web, 130 quit with Ctrl-C (the shells' 128 + SIGINT).
 */
export const EXIT_CODES = { success: 0, failed: 1, usage: 2, needsApproval: 3, interrupted: 130 } as const;
