/**
 * The origin of a test's fake server named by a FERMIX_TEST_* variable, or undefined. Only a loopback http origin
 * (http://127.0.0.1:PORT) is taken: a variable slipped into a shell profile can point fermix at nothing else, so no
 * key, client secret or code sent to a "test" endpoint ever leaves the machine.
 */
export function testLoopbackOrigin(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "http:" && url.hostname === "127.0.0.1" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
