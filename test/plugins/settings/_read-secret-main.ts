// Run as a child with a real stdin: prints what readSecretInput read, JSON-encoded, or the error.
import { readSecretInput } from "../../../src/plugins/settings/read-secret-input.ts";

try {
  const value = await readSecretInput({ name: "slack", extra: process.argv.slice(2) });
  process.stdout.write(JSON.stringify({ value }));
} catch (err) {
  process.stdout.write(JSON.stringify({ error: (err as Error).message }));
}
