/** Writes and waits until the bytes are handed to the OS, so an explicit exit right after loses nothing. */
export function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (!process.stdout.write(text, () => resolve())) process.stdout.once("drain", () => resolve());
  });
}

export function writeErr(text: string): Promise<void> {
  return new Promise((resolve) => {
    process.stderr.write(text, () => resolve());
  });
}
