import { defineError } from "../error.ts";

/** The door refused on policy: the message names the URL, the host or address, and why. */
export const NetBlocked = defineError<{
  url: string;
  host?: string;
  address?: string;
  rule: string;
  /** Set when the refused URL came from a redirect. */
  from?: string;
}>("net_blocked");

/** The request was allowed but did not complete: DNS, connection, timeout. */
export const NetFailed = defineError<{ url: string; host?: string; kind: string }>("net_failed");
