import type { Category, Fact } from "./memories-contract.ts";

/** The two prompt-injected profiles and the categories each is built from. */
export const PROFILES = {
  user: {
    resource: "memory/main/USER.md",
    title: "About the owner",
    sections: [
      ["identity", "Identity"],
      ["preference", "Preferences"],
      ["interest", "Interests"],
      ["goal", "Goals"],
    ],
  },
  memory: {
    resource: "memory/main/MEMORY.md",
    title: "Working memory",
    sections: [
      ["context", "Context"],
      ["directive", "Directives"],
    ],
  },
} as const satisfies Record<
  string,
  { resource: string; title: string; sections: readonly (readonly [Category, string])[] }
>;

export type ProfileName = keyof typeof PROFILES;

const NOTE = "<!-- Rebuilt from stored facts by the memory review; earlier versions: `fermix memory revisions`. -->";

/**
 * A profile as Markdown: one section per category that has facts, one line per fact. The layout is
 * fixed and the facts are sorted, so the same facts always render the same text and an unchanged
 * profile is never rewritten.
 */
export function renderProfile(name: ProfileName, facts: readonly Fact[]): string {
  const profile = PROFILES[name];
  const parts = [`# ${profile.title}`, NOTE];
  let any = false;
  for (const [category, heading] of profile.sections) {
    const own = facts.filter((f) => f.category === category).sort((a, b) => a.key.localeCompare(b.key));
    if (!own.length) continue;
    any = true;
    parts.push(`## ${heading}\n${own.map((f) => `- ${f.key.replaceAll("_", " ")}: ${oneLine(f.value)}`).join("\n")}`);
  }
  if (!any) parts.push("Nothing recorded yet.");
  return `${parts.join("\n\n")}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").trim();
}
