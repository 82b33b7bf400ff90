/**
 * When a helper process (the browser worker, the plugin host) stops. Run as its own service it
 * stops on SIGTERM / SIGINT. Started by the launcher (an IPC channel to it is open), it ignores
 * those signals, which reach the whole process group, and stops when the launcher says so or goes
 * away: the app server may still be finishing runs that use it (lib/app/shutdown.ts), and the
 * launcher stops the helpers only after the server has exited.
 */
export function onStopRequest(stop: (why: string) => void): void {
  if (process.connected) {
    process.on("message", (message: { type?: string }) => {
      if (message?.type === "stop") stop("the launcher stopped it");
    });
    process.on("disconnect", () => stop("the launcher went away"));
    const wait = () => {};
    process.on("SIGTERM", wait);
    process.on("SIGINT", wait);
    return;
  }
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
