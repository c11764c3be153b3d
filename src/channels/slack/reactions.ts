/**
 * The reactions fermix sets on Slack, as the emoji the model picks from and the shortcode reactions.add takes
 * (Slack reacts by name, never by the character). Twenty common ones, like the earlier product's list; a workspace's
 * custom emoji are not offered.
 */
export const SLACK_REACTION_NAMES: Readonly<Record<string, string>> = {
  "👍": "thumbsup",
  "👎": "thumbsdown",
  "🎉": "tada",
  "👀": "eyes",
  "🔥": "fire",
  "❤️": "heart",
  "✅": "white_check_mark",
  "❌": "x",
  "🙌": "raised_hands",
  "👏": "clap",
  "😂": "joy",
  "🤔": "thinking_face",
  "🙏": "pray",
  "👌": "ok_hand",
  "💯": "100",
  "🚀": "rocket",
  "⭐": "star",
  "👋": "wave",
  "😄": "smile",
  "😢": "cry",
};

export const SLACK_REACTIONS = Object.keys(SLACK_REACTION_NAMES);

/**
 * The shortcode for an emoji on the list, or for a listed shortcode written as one (`tada`, `:tada:`); undefined
 * for anything else. A variation selector or spaces around it do not matter.
 */
export function slackReactionName(emoji: string): string | undefined {
  const bare = emoji.trim().replace(/\uFE0F/g, "");
  for (const [listed, name] of Object.entries(SLACK_REACTION_NAMES)) {
    if (listed.replace(/\uFE0F/g, "") === bare) return name;
  }
  const name = bare.replace(/^:(.+):$/, "$1").toLowerCase();
  return Object.values(SLACK_REACTION_NAMES).includes(name) ? name : undefined;
}
