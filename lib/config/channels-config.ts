import { z } from "zod";

/**
 * The `channels:` section of xclaw.yaml: how the QQ and Feishu bots (lib/channels) talk to their
 * platforms. Bot accounts and their secrets are not here: admins add them on /admin/channels.
 */
const ZPrivateHost = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\](:\d{1,5})?|[0-9a-fA-F:.]+\/\d{1,3}|[0-9a-fA-F:]*:[0-9a-fA-F:]+|[A-Za-z0-9.-]+(:\d{1,5})?)$/, "must be host, host:port, [v6]:port or an address range");

/** How many replies one message may get, and after how long the platform stops taking them (`mostReplies`: what it allows at all). */
const ZReplyWindow = (defaults: { directMinutes: number; groupMinutes: number; maxReplies: number; splitCharacters: number }, mostReplies: number) =>
  z
    .strictObject({
      /** Replies to a direct message are accepted this long after it was sent. */
      directMinutes: z.int().min(1).max(10_080).default(defaults.directMinutes),
      /** The same for a message in a group. */
      groupMinutes: z.int().min(1).max(10_080).default(defaults.groupMinutes),
      /** Replies one message may get; a long answer is split and every part counts. */
      maxReplies: z.int().min(1).max(mostReplies).default(defaults.maxReplies),
      /** A longer answer is sent in parts of at most this many characters. */
      splitCharacters: z.int().min(20).max(20_000).default(defaults.splitCharacters),
    })
    .prefault({});

export const ZChannelsConfig = z
  .strictObject({
    /**
     * The platforms' APIs must be on public addresses (the SSRF guard checks every call and
     * redirect). Private hosts listed here are allowed anyway: `host`, `host:port`, `[v6]:port` or
     * a range such as `10.1.0.0/16` (a gateway in front of the platform, tests' fake servers).
     */
    allowedPrivateHosts: z.array(ZPrivateHost).default([]),
    /** Each call to a platform's API (token, reply) gives up after this long. */
    requestTimeoutSeconds: z.int().min(1).max(120).default(10),
    /** Signed callbacks whose timestamp is further than this from the server's clock are refused. */
    timestampToleranceSeconds: z.int().min(10).max(3_600).default(300),
    /**
     * Pictures and files sent to a bot: downloaded (through the SSRF guard) by the job that handles
     * the message, stored in the bound person's workspace under channels/<date>/ and given to the run.
     */
    attachments: z
      .strictObject({
        /** A larger file is not downloaded; the run is told it was skipped. */
        maxFileBytes: z.int().min(1_024).max(100 * 1024 * 1024).default(20 * 1024 * 1024),
        /** Files read from one message; the rest are skipped with a note. */
        maxFiles: z.int().min(0).max(20).default(5),
        /** Each download gives up after this long. */
        timeoutSeconds: z.int().min(1).max(600).default(60),
      })
      .prefault({}),
    /** Inbound events are kept this long to drop deliveries the platform repeats. */
    keepEventDays: z.int().min(1).max(365).default(7),
    /** QQ takes passive replies only: msg_seq 1..5 within 60 minutes of a direct message, 5 in a group. */
    qq: ZReplyWindow({ directMinutes: 60, groupMinutes: 5, maxReplies: 5, splitCharacters: 1_500 }, 5),
    /** Feishu takes replies to a message at any time; the window only bounds how late a continuation is sent. */
    feishu: ZReplyWindow({ directMinutes: 1_440, groupMinutes: 1_440, maxReplies: 10, splitCharacters: 4_000 }, 20),
  })
  .prefault({});

export type TChannelsConfig = z.infer<typeof ZChannelsConfig>;
