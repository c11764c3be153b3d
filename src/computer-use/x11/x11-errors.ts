import { defineError } from "../../error.ts";

/** The X display could not be reached or dropped the connection; `display` is ":N", the reason says why. */
export const DisplayUnreachable = defineError<{ display: string }>("computer_use_display_unreachable");

/** The X server has no XTest extension, so synthetic input is impossible (data.display says which). */
export const NoXTest = defineError<{ display: string }>("computer_use_no_xtest");

/** A key name in a combination that is no X keysym; the message lists spellings that work. */
export const UnknownKey = defineError<{ key: string }>("computer_use_unknown_key");

/**
 * The X server refused a request (a bad coordinate, a window gone): the request, and X's error code
 * (`xError`, e.g. 3 BadWindow) when the server sent one.
 */
export const X11RequestFailed = defineError<{ request: string; xError?: number }>("computer_use_x11_request_failed");

/** X's error code for a window that no longer exists. */
export const BAD_WINDOW = 3;
