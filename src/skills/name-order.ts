/**
 * Orders skill names and folder names by their UTF-16 code units: a fixed order, the same on every machine. Not
 * localeCompare: its first call in a process builds the engine's collator (ICU), ~1.3 ms in a compiled program, and
 * the skills catalog is read before every one-shot ask's first model request (issue 31). Skill names are lowercase
 * ASCII (parse.ts's SKILL_NAME), for which the two orders agree but for `-` and `_` against letters.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
