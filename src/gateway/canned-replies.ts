/** What the gateway answers itself, without a model (the earlier product's sentences). */
export const CANNED = {
  emptyModelOutput: "I didn't get a response — please try again.",
  looksEmpty: "Your message looks empty — send some text or media I can read.",
  turnFailed: "Sorry, I encountered an error processing your message.",
  restarting: "I'm restarting — please send your message again in a moment.",
  ownerOnly: "This command requires owner permissions.",
  noExecution: "No active Fermix execution to stop.",
  /** Appended to history when /stop ends a turn, so the orphaned message is not acted on later. */
  stoppedMarker: "(Stopped by the owner with /stop before answering; this message was not acted on.)",
  /** A message found waiting when fermix started, older than the channel's backlog window: said once, no turn. */
  arrivedWhileDown: (at: number) =>
    `This message arrived at ${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC, while fermix was not running, so I did not act on it. If it still matters, send it again.`,
};

export function stoppedReply(turns: number, queued: number, background: number): string {
  return `Stopped Fermix execution — cancelled ${turns} active turns, cleared ${queued} queued messages, and stopped ${background} background tasks. Scheduled jobs and voice are not affected by /stop.`;
}
