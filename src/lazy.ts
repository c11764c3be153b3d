/** An object built on first use: its methods can be handed out now, its cost is paid only if one is called. */
export function lazy<T extends object>(make: () => T): T {
  let value: T | undefined;
  return new Proxy({} as T, {
    get(_, key) {
      value ??= make();
      const member = (value as Record<PropertyKey, unknown>)[key];
      return typeof member === "function" ? member.bind(value) : member;
    },
  });
}

/** A step that must happen at most once, however many callers ask for it (FERMIX_HOME's prompt files). */
export function once(step: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    step();
  };
}

/** A promise made on the first call and shared by every later one (a module loaded when first used). */
export function onFirstCall<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
