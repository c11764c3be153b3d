/**
 * The reactions a bot may set in any chat (Telegram's free set; custom and paid ones need more). Anything else is
 * refused before the call, with the list, so the model can pick again.
 */
export const TELEGRAM_REACTIONS = [
  "👍",
  "👎",
  "🔥",
  "🥰",
  "👏",
  "😁",
  "🤔",
  "🤯",
  "😱",
  "🎉",
  "🤩",
  "🙏",
  "👌",
  "💯",
  "🤣",
  "😢",
  "😍",
  "🙈",
  "🤝",
  "👀",
  "🫡",
  "🤗",
  "😎",
  "😭",
] as const;

/** The listed form of an emoji (a trailing variation selector or spaces ignored), or undefined when not listed. */
export function telegramReaction(emoji: string): string | undefined {
  const bare = emoji.trim().replace(/\uFE0F/g, "");
  return TELEGRAM_REACTIONS.find((listed) => listed.replace(/\uFE0F/g, "") === bare);
}
