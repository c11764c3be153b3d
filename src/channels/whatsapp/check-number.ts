import { type GraphApi, tokenRejected, WhatsAppApiError, WhatsAppUnreachable } from "./graph-api.ts";

/** Doctor's live check: one GET, no retry, answered within this. */
export const CHECK_TIMEOUT_MS = 5000;

/** `unreachable`: no answer at all (the network), as opposed to an answer that refuses. */
type Check = { ok: true; detail: string } | { ok: false; detail: string; fix: string; unreachable?: boolean };

type PhoneNumber = { id?: unknown; display_phone_number?: unknown; verified_name?: unknown };

/**
 * Whether the access token works and the phone number id is the business number it opens:
 * GET /{phone_number_id}?fields=id,display_phone_number,verified_name, whose id must be the one asked for.
 */
export async function checkNumber(api: GraphApi, phoneNumberId: string): Promise<Check> {
  try {
    const number = await api.get<PhoneNumber>(
      phoneNumberId,
      { fields: "id,display_phone_number,verified_name" },
      { timeoutMs: CHECK_TIMEOUT_MS },
    );
    if (String(number.id) !== phoneNumberId) {
      return {
        ok: false,
        detail: `Graph answered for phone number id ${String(number.id)}, not ${phoneNumberId}`,
        fix: "copy the Phone number ID from WhatsApp > API Setup in the Meta app and run `fermix setup --channel whatsapp`",
      };
    }
    const name = typeof number.verified_name === "string" ? number.verified_name : "";
    const shown = typeof number.display_phone_number === "string" ? number.display_phone_number : "";
    return {
      ok: true,
      detail: `number ${[shown, name && `(${name})`].filter(Boolean).join(" ") || phoneNumberId}`.trim(),
    };
  } catch (err) {
    if (tokenRejected(err)) {
      return {
        ok: false,
        detail: `WhatsApp refused the access token (${(err as { data: { description: string } }).data.description})`,
        fix: "create a permanent access token (a System User token in Meta Business Settings) and run `fermix setup --channel whatsapp`",
      };
    }
    if (WhatsAppApiError.is(err)) {
      // 100: the object does not exist or this token cannot see it — the id is wrong or belongs to another app.
      if (err.data.graphCode === 100 || err.data.status === 404) {
        return {
          ok: false,
          detail: `WhatsApp does not know phone number id ${phoneNumberId} for this token (${err.data.description})`,
          fix: "copy the Phone number ID (not the phone number) from WhatsApp > API Setup and run `fermix setup --channel whatsapp`",
        };
      }
      return { ok: false, detail: err.message, fix: "try again later; if it persists, check https://metastatus.com" };
    }
    if (WhatsAppUnreachable.is(err)) {
      return {
        ok: false,
        detail: err.message,
        fix: "check the network (or api_base_url in [fermix_channels.whatsapp])",
        unreachable: true,
      };
    }
    return { ok: false, detail: api.redact(String((err as Error)?.message ?? err)), fix: "run `fermix doctor` again" };
  }
}
