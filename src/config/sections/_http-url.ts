import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

/** An API root the owner may point a backend at (a proxy, a self-hosted server, a test endpoint). */
export const HttpUrl = lazySchema(() =>
  v.pipe(
    v.string(),
    v.url("a URL such as https://api.example.com/v1"),
    v.regex(/^https?:\/\//i, "a URL starting with http:// or https://"),
  ),
);
