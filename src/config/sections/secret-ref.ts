import * as v from "valibot";
import { lazySchema } from "../../valibot-lazy.ts";

/** A secret: plaintext, "@keyring", "$ENV_VAR", or a table naming its source. */
export const SecretRef = lazySchema(() =>
  v.union(
    [
      v.pipe(v.string(), v.minLength(1, "a non-empty string")),
      v.strictObject({ source: v.literal("env"), name: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)) }),
      v.strictObject({ source: v.literal("command"), command: v.pipe(v.array(v.string()), v.minLength(1)) }),
      v.strictObject({ source: v.literal("file"), path: v.string() }),
    ],
    'a secret: a string ("sk-…", "@keyring" or "$ENV_VAR") or a table with source = "env", "command" or "file"',
  ),
);
export type SecretRef = v.InferOutput<typeof SecretRef>;
