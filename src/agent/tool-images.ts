import type { Route } from "../providers/routes.ts";
import type { ImagePart, Message, UserMessage } from "../providers/types.ts";
import { canSeeImages } from "../providers/vision.ts";

const MARK = "[fermix: the images below were returned by the tool calls above]";
const OMITTED = "[fermix: an earlier tool image was here; only the latest ones are kept]";

/**
 * A tool's pictures (a browser screenshot, a generated image to look at) as the model sees them. Tool results are
 * text on every wire (Chat Completions allows nothing else), so the pictures follow the results as one user
 * message. Only the latest batch keeps its bytes: a turn of twenty screenshots would otherwise resend all of them on
 * every call.
 */
export const showToolImages = {
  /** What the tool result says about its images; collects them into `into` when the route's model can see. */
  note(route: Route, images: readonly ImagePart[], into: ImagePart[]): string {
    if (!canSeeImages(route.descriptor.id, route.model)) {
      return `\n[fermix: ${images.length} image(s) not shown: ${route.model} on ${route.descriptor.id} does not read images]`;
    }
    into.push(...images);
    return `\n[fermix: ${images.length} image(s) attached after these results]`;
  },
  /**
   * `keep`: how many batches, this one included, keep their bytes (computer_use's max_retained_screenshots, so the
   * model can compare the last few screens); the older ones become a placeholder.
   */
  attach(messages: Message[], images: readonly ImagePart[], keep = 1): void {
    let kept = 1;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.role === "user" && m.content[0]?.type === "text" && m.content[0].text === MARK) {
        if (kept < keep) kept++;
        else messages[i] = { role: "user", content: [{ type: "text", text: OMITTED }] };
      }
    }
    const message: UserMessage = { role: "user", content: [{ type: "text", text: MARK }, ...images] };
    messages.push(message);
  },
};
