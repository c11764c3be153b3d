import * as v from "valibot";
import type { InboundMessage } from "../channel.ts";
import type { DiscordRest } from "./discord-rest.ts";
import { Interaction, MESSAGE_COMPONENT } from "./wire-types.ts";

/** An Approve/Deny button's custom_id, as the gateway sets it: `grant:<token>` / `deny:<token>`. */
const TAP_DATA = /^(grant|deny):([A-Za-z0-9]{4,32})$/;
/** Discord drops an interaction not answered within 3 s; the owner's tap is deferred before that if need be. */
export const DEFER_AFTER_MS = 2000;
/** An interaction's token works for 15 minutes: a deferred tap's buttons can be removed until then. */
const TOKEN_LIFETIME_MS = 15 * 60_000;
/** Interaction callback types (API v10). */
const CALLBACK = { reply: 4, deferredUpdate: 6, updateMessage: 7 } as const;
const EPHEMERAL = 1 << 6;

export const REFUSAL = "Only the owner can answer this request — your tap was not counted.";

type Log = { info(msg: string): void; warn(msg: string): void };
type Tap = { token: string; applicationId: string; deferred?: Promise<void>; timer: ReturnType<typeof setTimeout> };

/**
 * The Approve/Deny buttons' taps, which arrive as INTERACTION_CREATE (type 3) over the gateway and must be
 * answered within 3 s. Only the owner's tap goes on, as the message `/confirm TOKEN` (or `/deny TOKEN`) whose
 * `tap` the gateway acknowledges through `answer` — the callback that also removes the buttons. Anyone else gets
 * an ephemeral refusal, only they see it, and the tap never reaches /confirm, so the token is not spent. A tap on
 * any other component is acknowledged and nothing more.
 */
export function createButtonTaps(deps: { rest: DiscordRest; ownerId: string | undefined; log: Log }) {
  const taps = new Map<string, Tap>();

  const callback = (id: string, token: string, body: unknown) =>
    deps.rest.request("answering a button tap", "POST", `/interactions/${id}/${token}/callback`, {
      body,
      // Interaction callbacks are authorised by their token, not the bot's.
      auth: false,
    });

  const quietly = (what: string, call: Promise<unknown>) =>
    void call.catch((err: unknown) => deps.log.warn(`discord: ${what}: ${(err as Error)?.message ?? String(err)}`));

  return {
    /** An INTERACTION_CREATE: the owner's tap as a message for the gateway; anyone else's is answered here. */
    receive(raw: unknown): InboundMessage | undefined {
      const parsed = v.safeParse(Interaction, raw);
      if (!parsed.success || parsed.output.type !== MESSAGE_COMPONENT) return undefined;
      const interaction = parsed.output;
      const { id, token } = interaction;
      const match = TAP_DATA.exec(interaction.data?.custom_id ?? "");
      const channelId = interaction.channel_id ?? interaction.message?.channel_id;
      if (!match || !interaction.message || !channelId) {
        quietly("could not acknowledge a tap", callback(id, token, { type: CALLBACK.deferredUpdate }));
        return undefined;
      }
      const tapper = interaction.member?.user ?? interaction.user;
      if (!tapper || deps.ownerId === undefined || tapper.id !== deps.ownerId) {
        deps.log.info(`discord: refused a button tap from ${tapper?.id ?? "an unknown user"}: not the owner`);
        quietly(
          "could not send a tap's refusal",
          callback(id, token, { type: CALLBACK.reply, data: { content: REFUSAL, flags: EPHEMERAL } }),
        );
        return undefined;
      }
      const tap: Tap = {
        token,
        applicationId: interaction.application_id,
        timer: setTimeout(() => {
          // The gateway has not answered yet: keep the interaction alive, and remove the buttons when it does.
          tap.deferred = callback(id, token, { type: CALLBACK.deferredUpdate }).then(() => {});
          quietly("could not defer a tap", tap.deferred);
          tap.timer = setTimeout(() => taps.delete(id), TOKEN_LIFETIME_MS);
        }, DEFER_AFTER_MS),
      };
      taps.set(id, tap);
      const [, verb, approval] = match;
      const name = tapper.global_name ?? tapper.username;
      return {
        id: `interaction-${id}`,
        channel: "discord",
        chatId: channelId,
        senderId: tapper.id,
        ...(name ? { senderName: name } : {}),
        text: `/${verb === "grant" ? "confirm" : "deny"} ${approval}`,
        attachments: [],
        chatType: interaction.guild_id === undefined ? "private" : "group",
        tap: { id, messageId: interaction.message.id },
      };
    },

    /** Acknowledges the owner's tap and removes the buttons (the token in them is single use). */
    async answer(tapId: string): Promise<void> {
      const tap = taps.get(tapId);
      if (!tap) return;
      taps.delete(tapId);
      clearTimeout(tap.timer);
      if (!tap.deferred) {
        await callback(tapId, tap.token, { type: CALLBACK.updateMessage, data: { components: [] } });
        return;
      }
      await tap.deferred.catch(() => {});
      await deps.rest.request(
        "removing the buttons",
        "PATCH",
        `/webhooks/${tap.applicationId}/${tap.token}/messages/@original`,
        { body: { components: [] }, auth: false },
      );
    },

    stop(): void {
      for (const tap of taps.values()) clearTimeout(tap.timer);
      taps.clear();
    },
  };
}
